import { DeleteCommand, DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { cancelDiagnosis, type DiagnosisResult } from '@diagnosis/core';
import { createDynamoRunStore, createDynamoTenantLeaseStore, newRunItem } from '@diagnosis/core/store';
import { runLocalWorkflow } from '@diagnosis/devkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  buildDiagnosisWorkflowDefinition,
  executionArnOf,
  LOCAL_WORKFLOW_ARN,
} from '../../../functions/diagnose/diagnosis-workflows.ts';
import { type DeepSeekResponse, wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';
import { draftAnswer, supportedDraft } from '../../support/run-fixtures.ts';

const ARN = 'arn:aws:lambda:local:000000000000:function:Diagnose';
const definition = buildDiagnosisWorkflowDefinition({ diagnoseFunctionArn: ARN });
const conversation = e1001ScriptedConversation();
let world: Awaited<ReturnType<typeof startE2eWorld>>;
const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);

beforeAll(async () => {
  world = await startE2eWorld();
});
afterAll(async () => {
  await world?.cleanup();
  dynamo.destroy();
});

let counter = 0;
const executionName = () => `wf-${Date.now().toString(36)}-${(counter++).toString(36)}`;
const replay = (responses: DeepSeekResponse[]) => world.server.script.push(...structuredClone(responses));
const leases = () => createDynamoTenantLeaseStore({ client: dynamo, tableName: world.tableName }).listLeases('E1001');

/**
 * Runs DiagnosisWorkflow's own definition locally: each Diagnose task invokes the real handler with the payload the
 * task's template gives for this input; retries wait for `beforeRetry` instead of time.
 */
async function execute(input: Record<string, unknown>, beforeRetry: (error: string) => Promise<void> = async () => {}) {
  const name = executionName();
  const invocations: { payload: unknown; outcome: string }[] = [];
  const execution = await runLocalWorkflow(definition, input, {
    executionName: name,
    sleep: async (_milliseconds, error) => beforeRetry((error as Error).name),
    invoke: async (functionArn, payload) => {
      expect(functionArn).toBe(ARN);
      try {
        const result = (await world.handlers.diagnose(payload, lambdaContext(60_000))) as DiagnosisResult;
        invocations.push({ payload, outcome: result.status });
        return result;
      } catch (error) {
        invocations.push({ payload, outcome: (error as Error).name });
        throw error;
      }
    },
  });
  return { name, execution, invocations };
}

const REQUEST = { sessionId: 'ops-wf', enterpriseId: 'E1001', query: conversation.query };

describe('DiagnosisWorkflow on the real Diagnose handler', () => {
  afterEach(async () => {
    // NOTE: every branch, thrown errors included, gives the enterprise's lease slot back.
    expect(await leases()).toEqual([]);
  });

  it('publishes, with the execution name as the runId, and ends in Published', async () => {
    replay(conversation.responses);
    const { name, execution, invocations } = await execute(REQUEST);
    expect(invocations).toEqual([
      {
        payload: {
          ...REQUEST,
          runId: name,
          continueSession: false,
          executionArn: executionArnOf(LOCAL_WORKFLOW_ARN, name),
        },
        outcome: 'PUBLISHED',
      },
    ]);
    expect(execution).toMatchObject({ status: 'SUCCEEDED', states: ['Diagnose', 'Released', 'Published'] });
    expect(execution.status === 'SUCCEEDED' && execution.output).toMatchObject({ runId: name, status: 'PUBLISHED' });
  });

  it('ends a FALLBACK result in FallbackReported', async () => {
    replay([
      wireToolCalls([{ id: 'call_00_real', name: 'lookup_knowledge', arguments: { input: { query: '连接池' } } }]),
      wireText(draftAnswer(supportedDraft(['call_00_real', 'call_00_invented']))),
    ]);
    const { execution } = await execute(REQUEST);
    expect(execution).toMatchObject({ status: 'SUCCEEDED', states: ['Diagnose', 'Released', 'FallbackReported'] });
  });

  it('ends a FAILED result in the DiagnosisFailed Fail state', async () => {
    world.server.script.push({ status: 500, body: { error: { message: 'internal error' } } });
    const { execution, invocations } = await execute(REQUEST);
    expect(invocations.map((invocation) => invocation.outcome)).toEqual(['FAILED']);
    expect(execution).toMatchObject({
      status: 'FAILED',
      error: 'DiagnosisFailed',
      states: ['Diagnose', 'Released', 'DiagnosisFailed'],
    });
  });

  it('ends a run cancelled while QUEUED in Cancelled, with no model call', async () => {
    const runId = `wf-cancelled-${Date.now().toString(36)}`;
    const store = createDynamoRunStore({ client: dynamo, tableName: world.tableName });
    await store.queueRun({ ...REQUEST, runId, continueSession: false });
    await cancelDiagnosis(runId, { store });
    const requests = world.server.requests.length;
    const { execution, invocations } = await execute({ ...REQUEST, runId });
    expect(invocations.map((invocation) => invocation.outcome)).toEqual(['CANCELLED']);
    expect(execution).toMatchObject({ status: 'SUCCEEDED', states: ['Diagnose', 'Released', 'Cancelled'] });
    expect(world.server.requests.length).toBe(requests);
  });

  it('never claims a QUEUED run for an execution that names it with another request: RunIdConflict, the run left QUEUED', async () => {
    const runId = `wf-queued-other-${Date.now().toString(36)}`;
    const store = createDynamoRunStore({ client: dynamo, tableName: world.tableName });
    await store.queueRun({ ...REQUEST, runId, continueSession: false });
    const requests = world.server.requests.length;
    for (const other of [
      { query: '另一个问题' },
      { enterpriseId: 'E2002' },
      { sessionId: 'another-session' },
      { continueSession: true },
    ]) {
      const { execution, invocations } = await execute({ ...REQUEST, runId, ...other });
      expect(invocations.map((invocation) => invocation.outcome)).toEqual(['DiagnosisRunIdConflictError']);
      expect(execution).toMatchObject({ status: 'FAILED', states: ['Diagnose', 'RunIdConflict'] });
      expect(await store.getRun(runId)).toMatchObject({ status: 'QUEUED', heartbeatAt: null, query: REQUEST.query });
    }
    expect(world.server.requests.length).toBe(requests);
  });

  it('catches a DiagnosisInputError into InvalidInput, with no retry and no model call', async () => {
    const before = world.server.requests.length;
    const { execution, invocations } = await execute({ ...REQUEST, enterpriseId: 'e1001' });
    expect(invocations.map((invocation) => invocation.outcome)).toEqual(['DiagnosisInputError']);
    expect(execution).toMatchObject({
      status: 'FAILED',
      error: 'DiagnosisInputError',
      states: ['Diagnose', 'InvalidInput'],
    });
    expect(world.server.requests.length).toBe(before);
  });

  it('catches a DiagnosisRunConflictError into RunInProgress while the run is running elsewhere', async () => {
    const runId = executionName();
    const running = newRunItem({ ...REQUEST, runId, continueSession: false }, Date.now(), 90);
    await documents.send(new PutCommand({ TableName: world.tableName, Item: running }));
    const { execution, invocations } = await execute({ ...REQUEST, runId });
    expect(invocations.map((invocation) => invocation.outcome)).toEqual(['DiagnosisRunConflictError']);
    expect(execution).toMatchObject({ status: 'FAILED', states: ['Diagnose', 'RunInProgress'] });
  });

  it('catches a DiagnosisRunIdConflictError into RunIdConflict when the runId belongs to another request', async () => {
    replay(conversation.responses);
    const first = await execute(REQUEST);
    const { execution, invocations } = await execute({ ...REQUEST, runId: first.name, query: '另一个问题' });
    expect(invocations.map((invocation) => invocation.outcome)).toEqual(['DiagnosisRunIdConflictError']);
    expect(execution).toMatchObject({ status: 'FAILED', states: ['Diagnose', 'RunIdConflict'] });
  });

  it('retries a DiagnosisServiceError with the same runId, and the retry publishes', async () => {
    const runId = executionName();
    // A run item that fails its schema: the store refuses it, and the handler answers DiagnosisServiceError.
    const key = { pk: `RUN#${runId}`, sk: 'RUN' };
    await documents.send(new PutCommand({ TableName: world.tableName, Item: { ...key, entity: 'run', status: 42 } }));
    replay(conversation.responses);
    const retried: string[] = [];
    const { name, execution, invocations } = await execute({ ...REQUEST, runId }, async (error) => {
      retried.push(error);
      await documents.send(new DeleteCommand({ TableName: world.tableName, Key: key }));
    });
    expect(retried).toEqual(['DiagnosisServiceError']);
    const executionArn = executionArnOf(LOCAL_WORKFLOW_ARN, name);
    expect(invocations).toEqual([
      { payload: { ...REQUEST, runId, continueSession: false, executionArn }, outcome: 'DiagnosisServiceError' },
      { payload: { ...REQUEST, runId, continueSession: false, executionArn }, outcome: 'PUBLISHED' },
    ]);
    expect(execution).toMatchObject({ status: 'SUCCEEDED', states: ['Diagnose', 'Released', 'Published'] });
  });
});
