/**
 * POST /diagnoses accepts any runId matching RUN_ID_PATTERN (`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$`), but
 * the run's Step Functions execution is NAMED by the runId, and an execution name is 1–80 characters without `:` (AWS
 * StartExecution: "A name must not contain: white space, brackets, wildcard characters, special characters
 * \" # % \\ ^ | ~ ` $ & , ; : /"; length 1–80; else InvalidName). The run is queued BEFORE the execution is started,
 * so such a runId gets a 500 and leaves a QUEUED run that no execution will ever take (every replay: 500 again).
 * Same for any transient StartExecution failure whose caller does not retry: QUEUED forever (no sweeper).
 */
import { InvalidName, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStartDiagnosisHandler } from '../../../functions/api/start-handler.ts';
import { createStepFunctionsWorkflow } from '../../../functions/diagnose/step-functions-workflow.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-prod-DiagnosisWorkflow';
/** What Step Functions accepts as an execution name (AWS API reference, StartExecution `name`). */
const validExecutionName = (name: string) =>
  name.length >= 1 &&
  name.length <= 80 &&
  !/[\s<>{}[\]?*"#%\\^|~`$&,;:/]/.test(name) &&
  ![...name].some(
    (char) =>
      (char.codePointAt(0) ?? 0) < 0x20 || ((char.codePointAt(0) ?? 0) >= 0x7f && (char.codePointAt(0) ?? 0) <= 0x9f),
  );

const sfn = mockClient(SFNClient);
const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
let handler: ReturnType<typeof createStartDiagnosisHandler>;
let store: ReturnType<typeof createDynamoRunStore>;
beforeAll(async () => {
  table = await createTestTable(dynamo);
  store = createDynamoRunStore({ client: dynamo, tableName: table.tableName });
  const workflow = createStepFunctionsWorkflow(new SFNClient({ region: 'eu-west-1' }), ARN);
  handler = createStartDiagnosisHandler(
    { store, workflow },
    { ...createObservability('StartDiagnosis'), policy: null },
  );
  sfn.on(StartExecutionCommand).callsFake((input: { name?: string }) => {
    if (!validExecutionName(input.name ?? '')) throw new InvalidName({ message: 'Invalid Name', $metadata: {} });
    return { executionArn: `${ARN}:${input.name}`, startDate: new Date() };
  });
});
afterAll(async () => {
  sfn.restore();
  await table?.drop();
  dynamo.destroy();
});

const post = async (body: Record<string, unknown>) => {
  const response = (await handler(
    httpEvent({ body: JSON.stringify(body) }) as never,
    lambdaContext(30_000) as never,
  )) as {
    statusCode: number;
    body: string;
  };
  return { status: response.statusCode, body: JSON.parse(response.body) };
};

describe('a runId the API accepts but Step Functions cannot name an execution after', () => {
  it.each([
    ['a colon', 'tenant:run:1'],
    ['81 characters', `r${'x'.repeat(80)}`],
  ])(
    '(%s) is refused with 400 before anything is written, never 500 with a QUEUED run left behind',
    async (_l, runId) => {
      const body = { runId, sessionId: 's', enterpriseId: 'E1001', query: 'E1001 的订单从 14:05 开始失败，为什么？' };
      const first = await post(body);
      const replay = await post(body);
      const stored = await store.getRun(runId);
      expect({ first: first.status, replay: replay.status, stored: stored?.status ?? null }).toEqual({
        first: 400,
        replay: 400,
        stored: null,
      });
    },
  );
});
