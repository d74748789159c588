/**
 * Issue 19, defect 6: StartExecution of a STANDARD machine with the name and input of a RUNNING execution succeeds
 * (AWS, StartExecution: "idempotent … if the execution is closed or if the input is different, it returns a 400
 * ExecutionAlreadyExists error"). So `ExecutionAlreadyExists` never means "our start is already running": the name
 * (the runId) belongs to another request's execution — one older than the table's retention, say — or to this run's
 * own execution that has ended. Treated as success, the run stayed QUEUED forever. Through the real StartDiagnosis
 * handler with API Gateway v2 events, on DynamoDB Local.
 * NOTE: aws-sdk-client-mock because Step Functions has no local engine this project can run.
 */
import {
  DescribeExecutionCommand,
  type DescribeExecutionCommandOutput,
  ExecutionAlreadyExists,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createStartDiagnosisHandler } from '../../../functions/api/start-handler.ts';
import { createStepFunctionsWorkflow } from '../../../functions/diagnose/step-functions-workflow.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-prod-DiagnosisWorkflow';
const executionArnOf = (runId: string) => `${ARN.replace(':stateMachine:', ':execution:')}:${runId}`;

const sfn = mockClient(SFNClient);
const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
let handler: ReturnType<typeof createStartDiagnosisHandler>;
let store: ReturnType<typeof createDynamoRunStore>;
/** The handler's log lines, for the test that reads them. */
const logs: Record<string, unknown>[] = [];
beforeAll(async () => {
  table = await createTestTable(dynamo);
  store = createDynamoRunStore({ client: dynamo, tableName: table.tableName });
  handler = createStartDiagnosisHandler(
    { store, workflow: createStepFunctionsWorkflow(new SFNClient({ region: 'eu-west-1' }), ARN) },
    { ...createObservability('StartDiagnosis', (line) => void logs.push(JSON.parse(line))), policy: null },
  );
});
afterEach(() => sfn.reset());
afterAll(async () => {
  sfn.restore();
  await table?.drop();
  dynamo.destroy();
});

let counter = 0;
const newRunId = () => `exists-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const requestOf = (runId: string) => ({
  runId,
  sessionId: 's-1',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
});
/** The input StartDiagnosis gives the execution: the checked request, `continueSession` filled in. */
const inputOf = (runId: string) => JSON.stringify({ ...requestOf(runId), continueSession: false });

const post = async (body: Record<string, unknown>) => {
  const response = (await handler(
    httpEvent({ body: JSON.stringify(body) }) as never,
    lambdaContext(30_000) as never,
  )) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
};

/** The name is taken: StartExecution refuses, DescribeExecution on the deterministic ARN tells whose it is. */
function existingExecution(runId: string, execution: Partial<DescribeExecutionCommandOutput>) {
  sfn
    .on(StartExecutionCommand)
    .rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} }));
  sfn.on(DescribeExecutionCommand, { executionArn: executionArnOf(runId) }).resolves({
    executionArn: executionArnOf(runId),
    stateMachineArn: ARN,
    name: runId,
    status: 'RUNNING',
    startDate: new Date('2026-12-01T09:00:00Z'),
    input: inputOf(runId),
    ...execution,
  });
}

describe('createStepFunctionsWorkflow().start when the execution name already exists', () => {
  it.each([
    ['another request’s input (an execution older than the table’s retention)', { input: inputOf('other-run') }],
    ['another state machine’s execution', { stateMachineArn: `${ARN}-old` }],
    ['no input at all', { input: undefined }],
  ])(
    'closes the run FAILED WORKFLOW_START_FAILED and answers 409 WORKFLOW_EXECUTION_CONFLICT for %s',
    async (_label, execution) => {
      const runId = newRunId();
      existingExecution(runId, execution);
      const first = await post(requestOf(runId));
      expect(first).toMatchObject({ status: 409, body: { error: { code: 'WORKFLOW_EXECUTION_CONFLICT' } } });
      expect(JSON.stringify(first.body)).not.toContain('Execution Already Exists');
      expect(await store.getRun(runId)).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_START_FAILED' });
      expect(sfn.commandCalls(DescribeExecutionCommand).map((call) => call.args[0].input)).toEqual([
        { executionArn: executionArnOf(runId) },
      ]);
      // The same request again reads the closed run; nothing is started again.
      const replay = await post(requestOf(runId));
      expect(replay).toMatchObject({ status: 200, body: { status: 'FAILED' } });
      expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
    },
  );

  it.each(['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED'] as const)(
    'closes a QUEUED run FAILED WORKFLOW_FAILED when its own execution already ended %s (409 WORKFLOW_EXECUTION_ENDED)',
    async (status) => {
      const runId = newRunId();
      existingExecution(runId, { status, stopDate: new Date('2026-12-01T09:05:00Z') });
      const first = await post(requestOf(runId));
      expect(first).toMatchObject({ status: 409, body: { error: { code: 'WORKFLOW_EXECUTION_ENDED' } } });
      expect(await store.getRun(runId)).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_FAILED' });
    },
  );

  it.each(['RUNNING', 'PENDING_REDRIVE'] as const)(
    'takes this run’s own %s execution (same name, same input, this machine) as started',
    async (status) => {
      const runId = newRunId();
      existingExecution(runId, { status });
      const first = await post(requestOf(runId));
      expect(first).toMatchObject({ status: 202, body: { runId, status: 'QUEUED' } });
      expect(await store.getRun(runId)).toMatchObject({ status: 'QUEUED' });
    },
  );

  it('closes the run WORKFLOW_START_FAILED and answers 500 when the existing execution cannot be read', async () => {
    const runId = newRunId();
    sfn
      .on(StartExecutionCommand)
      .rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', $metadata: {} }));
    sfn
      .on(DescribeExecutionCommand)
      .rejects(Object.assign(new Error('User is not authorized'), { name: 'AccessDeniedException' }));
    const first = await post(requestOf(runId));
    expect(first).toMatchObject({ status: 500, body: { error: { code: 'INTERNAL' } } });
    expect(JSON.stringify(first.body)).not.toContain('authorized');
    expect(await store.getRun(runId)).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_START_FAILED' });
    // The function's own log says what failed, by its class, never by the message of the AWS answer.
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'ERROR', message: 'request failed', runId, error: 'AccessDeniedException' }),
    );
    expect(JSON.stringify(logs)).not.toContain('authorized');
  });
});
