/**
 * One model round that asked for 200 tool calls put every audit write of the run
 * (all on one partition key) in flight at once, and refused calls never counted against `maxToolCalls`, so a round
 * could fan out without limit. Reproduced here through the real Diagnose handler (settings parsed from the
 * environment, the cold start's dependencies, the real provider against the loopback DeepSeek-format server, the
 * local adapters on `examples/`) on DynamoDB Local, with a middleware on the handler's own DynamoDB client that counts
 * the audit puts in flight.
 */
import type { DiagnosisResult } from '@diagnosis/core';
import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoRunStore, type RunRecord, type StoredStep } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildDiagnosisDependencies } from '../../../functions/diagnose/dependencies.ts';
import { createDiagnoseHandler } from '../../../functions/diagnose/diagnose-handler.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { startDeepSeekServer, wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { E2E_MODEL_KEY } from '../../support/e2e-world.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';
import { countWritesInFlight } from '../../support/write-counter.ts';

let server: Awaited<ReturnType<typeof startDeepSeekServer>>;
let table: Awaited<ReturnType<typeof createTestTable>>;
const reader = localDynamoClient();
const clients: { destroy(): void }[] = [];

beforeAll(async () => {
  server = await startDeepSeekServer();
  table = await createTestTable(reader);
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await server?.close();
  await table?.drop();
  reader.destroy();
});

/**
 * The Diagnose handler as its cold start builds it, with the given settings on top of the test world's, and a
 * counter on its DynamoDB client.
 */
async function diagnoseHandler(environment: Record<string, string> = {}) {
  const settings = parseDiagnosisSettings({
    DIAGNOSIS_TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
    DIAGNOSIS_MODEL_API_KEY: E2E_MODEL_KEY,
    SEMANTIC_GUARD: 'off',
    ...environment,
  });
  const dynamo = createDynamoClient(settings, process.env);
  clients.push(dynamo);
  const counter = countWritesInFlight(dynamo);
  /** The handler's log lines and EMF records, for the test that reads them. */
  const logs: Record<string, unknown>[] = [];
  const observability = createObservability('Diagnose', (line) => void logs.push(JSON.parse(line)));
  const handler = createDiagnoseHandler(await buildDiagnosisDependencies(settings, dynamo), observability);
  const diagnose = async (runId: string) =>
    (await handler(
      { runId, sessionId: 'flood', enterpriseId: 'E1001', query: 'E1001 的订单从 14:05 开始失败，为什么？' },
      lambdaContext(60_000),
    )) as DiagnosisResult;
  return { diagnose, counter, logs };
}

/** 200 calls in one round: 150 valid knowledge lookups (distinct queries) and 50 whose input fails the schema. */
function floodRound(prefix: string) {
  return wireToolCalls(
    Array.from({ length: 200 }, (_, index) =>
      index % 4 === 3
        ? {
            id: `${prefix}_${index}`,
            name: 'query_logs',
            arguments: { input: { service: 'order-service', level: 'LOUD' } },
          }
        : {
            id: `${prefix}_${index}`,
            name: 'lookup_knowledge',
            arguments: { input: { query: `订单失败 连接池 ${index}`, service: 'payment-gateway' } },
          },
    ),
  );
}

async function recordsOf(runId: string): Promise<RunRecord[]> {
  const store = createDynamoRunStore({ client: reader, tableName: table.tableName });
  const records: RunRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listRunRecords(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    records.push(...page.records);
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  return records;
}

const toolItems = (records: RunRecord[]) => records.filter((record) => record.entity === 'tool_invocation');

describe('a model round that asks for 200 tool calls, through the Diagnose handler on DynamoDB Local', () => {
  it('is discarded by default before any call runs: FALLBACK ROUND_TOOL_CALL_LIMIT, its step names the calls', async () => {
    const { diagnose, counter, logs } = await diagnoseHandler();
    const runId = `flood-default-${Date.now().toString(36)}`;
    const before = server.requests.length;
    server.script.push(floodRound('call'));

    const result = await diagnose(runId);

    expect(result).toMatchObject({ status: 'FALLBACK', stopReason: 'ROUND_TOOL_CALL_LIMIT' });
    expect(server.requests.length - before).toBe(1);
    const records = await recordsOf(runId);
    expect(records.find((record) => record.entity === 'run')).toMatchObject({
      status: 'FALLBACK',
      stopReason: 'ROUND_TOOL_CALL_LIMIT',
    });
    const steps = records.filter((record) => record.entity === 'agent_step') as StoredStep[];
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ toolCallsTotal: 200 });
    expect(toolItems(records)).toHaveLength(0);
    expect(counter.auditPeak()).toBeLessThanOrEqual(16);
    // One EMF record for the run: its outcome, no tool call counted as run, the stop reason as metadata.
    expect(logs.filter((line) => '_aws' in line)).toEqual([
      expect.objectContaining({ outcome: 'FALLBACK', stopReason: 'ROUND_TOOL_CALL_LIMIT', Runs: 1, ToolCalls: 0 }),
    ]);
  });

  it('with the round limit raised to 200, keeps at most 16 audit puts in flight and audits every call once', async () => {
    const { diagnose, counter } = await diagnoseHandler({
      DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND: '200',
      DIAGNOSIS_MAX_REJECTED_TOOL_CALLS: '200',
    });
    const runId = `flood-raised-${Date.now().toString(36)}`;
    server.script.push(floodRound('call'), wireText(JSON.stringify(noConclusionDraft())));

    const result = await diagnose(runId);

    expect(result.status).not.toBe('FAILED');
    const records = await recordsOf(runId);
    const tools = toolItems(records);
    expect(new Set(tools.map((record) => (record as { toolCallId: string }).toolCallId)).size).toBe(200);
    expect(tools).toHaveLength(200);
    expect(records.find((record) => record.entity === 'run')).not.toMatchObject({ status: 'RUNNING' });
    // 200 tool items and two rounds (each its step and reasoning in one request) went through the write-behind queue.
    expect(counter.writes()).toHaveLength(202);
    expect(counter.auditPeak()).toBeLessThanOrEqual(16);
    // NOTE: the bound was reached, not merely respected by a slow trickle: the same burst puts 200 on the wire unbounded
    // (dynamo-audit-writer-bounded.test.ts).
    expect(counter.auditPeak()).toBeGreaterThan(1);
  });

  it('keeps the bound set by AUDIT_MAX_WRITES_IN_FLIGHT', async () => {
    const { diagnose, counter } = await diagnoseHandler({
      DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND: '200',
      DIAGNOSIS_MAX_REJECTED_TOOL_CALLS: '200',
      AUDIT_MAX_WRITES_IN_FLIGHT: '2',
    });
    const runId = `flood-two-${Date.now().toString(36)}`;
    server.script.push(floodRound('call'), wireText(JSON.stringify(noConclusionDraft())));

    await diagnose(runId);

    expect(toolItems(await recordsOf(runId))).toHaveLength(200);
    expect(counter.auditPeak()).toBeLessThanOrEqual(2);
  });

  it('stops at the run’s 16th refusal: exactly 16 refusals audited, FALLBACK REJECTED_CALL_LIMIT, never RUNNING', async () => {
    const { diagnose, counter } = await diagnoseHandler({ DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND: '200' });
    const runId = `flood-rejected-${Date.now().toString(36)}`;
    const invalidOnly = wireToolCalls(
      Array.from({ length: 200 }, (_, index) => ({
        id: `bad_${index}`,
        name: 'query_logs',
        arguments: { input: { service: 'order-service', level: 'LOUD' } },
      })),
    );
    server.script.push(invalidOnly);

    const result = await diagnose(runId);

    expect(result).toMatchObject({ status: 'FALLBACK', stopReason: 'REJECTED_CALL_LIMIT' });
    expect(result.progress).toMatchObject({ rejectedToolCalls: 16, toolCalls: 0 });
    const records = await recordsOf(runId);
    expect(
      toolItems(records).map((record) => [
        (record as { toolCallId: string }).toolCallId,
        (record as { code: string }).code,
      ]),
    ).toEqual(Array.from({ length: 16 }, (_, index) => [`bad_${index}`, 'INVALID_INPUT']).sort());
    expect(records.find((record) => record.entity === 'run')).toMatchObject({
      status: 'FALLBACK',
      stopReason: 'REJECTED_CALL_LIMIT',
    });
    expect(counter.auditPeak()).toBeLessThanOrEqual(16);
  });
});
