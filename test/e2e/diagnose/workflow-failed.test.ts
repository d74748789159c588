/**
 * A QUEUED run whose DiagnosisWorkflow gives up (TenantBusy after ~17 minutes of retries, or any uncaught
 * failure before the claim) stays QUEUED forever: the execution ends in the Fail state, nothing closes the run, a
 * replay of POST /diagnoses only calls StartExecution again (ExecutionAlreadyExists, swallowed: the name is taken for
 * 90 days), and the EventBridge rule only listens for ABORTED. Here the enterprise's only slot is held by a long run
 * (TENANT_MAX_CONCURRENT_RUNS=1), and the deployed definition runs locally against the real Diagnose handler.
 */
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { runLocalWorkflow } from '@diagnosis/devkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDiagnosisWorkflowDefinition } from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createWorkflowEventsHandler } from '../../../functions/diagnose/workflow-events.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { lambdaContext } from '../../support/lambda-events.ts';

const ARN = 'arn:aws:lambda:local:000000000000:function:Diagnose';
const WORKFLOW_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-test-DiagnosisWorkflow';
let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
beforeAll(async () => {
  world = await startE2eWorld({ TENANT_MAX_CONCURRENT_RUNS: '1' });
});
afterAll(async () => {
  await world?.cleanup();
  dynamo.destroy();
});

describe('a queued run whose workflow gives up', () => {
  it('does not stay QUEUED forever', async () => {
    const store = createDynamoRunStore({ client: dynamo, tableName: world.tableName });
    // Another long run of E1001 holds the enterprise's only slot.
    await DynamoDBDocumentClient.from(dynamo).send(
      new PutCommand({
        TableName: world.tableName,
        Item: {
          pk: 'TENANT#E1001#LEASE',
          sk: 'SLOT#000',
          entity: 'tenant_lease',
          enterprise_id: 'E1001',
          slot: 0,
          holder: 'other-run@req',
          expires_at: Date.now() + 3_600_000,
          ttl: 0,
        },
      }),
    );
    const request = {
      runId: `rt-busy-${Date.now()}`,
      sessionId: 's',
      enterpriseId: 'E1001',
      query: '订单为什么失败？',
      continueSession: false,
    };
    await store.queueRun(request); // what POST /diagnoses does before StartExecution
    const execution = await runLocalWorkflow(buildDiagnosisWorkflowDefinition({ diagnoseFunctionArn: ARN }), request, {
      executionName: request.runId,
      sleep: async () => undefined, // the ~17 minutes of TenantBusy backoff, skipped
      invoke: async (_arn, payload) => world.handlers.diagnose(payload, lambdaContext(60_000)),
    });
    expect(execution).toMatchObject({ status: 'FAILED', error: 'DiagnosisTenantBusyError' });
    // Step Functions then sends its FAILED event (EventBridge), which closes the run: it does not wait forever.
    const onWorkflowEvent = createWorkflowEventsHandler(store, {
      ...createObservability('OnWorkflowStopped'),
      workflowArn: WORKFLOW_ARN,
    });
    const event = {
      source: 'aws.states',
      'detail-type': 'Step Functions Execution Status Change',
      detail: {
        executionArn: `${WORKFLOW_ARN.replace(':stateMachine:', ':execution:')}:${request.runId}`,
        name: request.runId,
        status: 'FAILED',
        stateMachineArn: WORKFLOW_ARN,
      },
    };
    expect(await onWorkflowEvent(event, lambdaContext(5_000))).toEqual({ run: 'FAILED' });
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'FAILED', errorCode: 'WORKFLOW_FAILED' });
  });
});
