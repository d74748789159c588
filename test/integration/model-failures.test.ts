import { createServer } from 'node:net';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { type DiagnosisResult, executeDiagnosisRun, type ModelFailureReport } from '@diagnosis/core';
import { createDynamoStores } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderReport } from '../../packages/cli/src/render/render-report.ts';
import { startDeepSeekServer, type WireScript } from '../support/deepseek-server.ts';
import { createTestTable, localDynamoClient } from '../support/dynamodb.ts';
import { createFakeEvidence } from '../support/fake-evidence.ts';

/** Put in everything the endpoint sends; it must never appear in a result, an item, a log line or the CLI text. */
const MARKER = 'ENDPOINT-BODY-MARKER-4b1d';
const KEY = 'sk-model-failures-test-key';
const TIMEOUT_MS = 300;

const client = localDynamoClient();
const documents = DynamoDBDocumentClient.from(client);
let table: Awaited<ReturnType<typeof createTestTable>>;
let server: Awaited<ReturnType<typeof startDeepSeekServer>>;
let closedPortUrl: string;

beforeAll(async () => {
  table = await createTestTable(client);
  server = await startDeepSeekServer();
  // A port that was free a moment ago and is closed now: connecting to it is refused.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  closedPortUrl = `http://127.0.0.1:${port}/v1`;
});
afterAll(async () => {
  await server?.close();
  await table?.drop();
  client.destroy();
});

let counter = 0;

/** One run through the service with the real provider and the DynamoDB store; everything it left behind. */
async function runAgainst(baseURL: string, script: WireScript = []) {
  server.script.push(...script);
  const runId = `model-failure-${Date.now().toString(36)}-${counter++}`;
  const logs: string[] = [];
  const provider = createOpenAICompatible({ name: 'deepseek', baseURL, apiKey: KEY, includeUsage: true });
  const startedAt = Date.now();
  const result: DiagnosisResult = await executeDiagnosisRun(
    {
      runId,
      sessionId: 'ops-model',
      enterpriseId: 'E1001',
      query: 'E1001 的订单从 14:05 开始失败，为什么？',
      continueSession: false,
      remainingMs: 8_000,
    },
    {
      model: provider.chatModel('deepseek-v4-flash'),
      evidence: createFakeEvidence().evidence,
      createStore: () => createDynamoStores({ client, tableName: table.tableName, retentionDays: 1 }),
      limits: { finalRoundReserveMs: 500, modelRequestTimeoutMs: TIMEOUT_MS },
      flushReserveMs: 100,
      log: (entry) => logs.push(JSON.stringify(entry)),
    },
  );
  const items = (await documents.send(new ScanCommand({ TableName: table.tableName }))).Items ?? [];
  const runItem = items.find((item) => item.pk === `RUN#${runId}` && item.entity === 'run');
  const text = renderReport(result, { modelBaseUrl: baseURL, modelTimeoutMs: TIMEOUT_MS });
  return { result, runItem, items: items.filter((item) => String(item.pk).endsWith(runId)), logs, text, startedAt };
}

const body = { error: { message: `${MARKER} key ${KEY} rejected`, type: MARKER } };

describe('executeDiagnosisRun when the model endpoint fails (real HTTP, DynamoDB Local)', () => {
  it.each([
    [
      '401',
      { status: 401, body },
      { kind: 'HTTP', http_status: 401, error_class: 'APICallError' },
      '401 Unauthorized: check DIAGNOSIS_MODEL_API_KEY',
    ],
    [
      '429',
      { status: 429, body },
      { kind: 'HTTP', http_status: 429, error_class: 'APICallError' },
      '429 Too Many Requests: rate limited',
    ],
    [
      '500',
      { status: 500, body },
      { kind: 'HTTP', http_status: 500, error_class: 'APICallError' },
      '500 Internal Server Error: the model service failed',
    ],
    [
      'an HTML page with 200',
      { status: 200, raw: `<html><body>${MARKER}</body></html>`, contentType: 'text/html' },
      { kind: 'INVALID_RESPONSE', http_status: 200, error_class: 'JSONParseError' },
      'not with an OpenAI-compatible chat completion (JSONParseError)',
    ],
  ] as const)(
    'records the status and class of %s in the result, the run item and the CLI text, and none of the body',
    async (_label, reply, failure, hint) => {
      const run = await runAgainst(server.baseURL, [reply]);
      const expected = { network_code: null, ...failure } satisfies ModelFailureReport;

      expect(run.result).toMatchObject({
        status: 'FAILED',
        report: { kind: 'FAILED', error_code: 'MODEL_FAILED', model_failure: expected },
      });
      expect(run.runItem).toMatchObject({ status: 'FAILED', error_code: 'MODEL_FAILED', model_failure: expected });
      expect(run.runItem?.report).toEqual(run.result.report);
      expect(run.text).toContain(hint);
      for (const trace of [JSON.stringify(run.result), JSON.stringify(run.items), run.logs.join('\n'), run.text]) {
        expect(trace).not.toContain(MARKER);
        expect(trace).not.toContain(KEY);
      }
    },
  );

  it('records a refused connection with its network code and names only the host', async () => {
    const run = await runAgainst(closedPortUrl);
    const expected = {
      kind: 'CONNECTION',
      http_status: null,
      error_class: 'APICallError',
      network_code: 'ECONNREFUSED',
    };

    expect(run.result.report).toMatchObject({ error_code: 'MODEL_FAILED', model_failure: expected });
    expect(run.runItem).toMatchObject({ error_code: 'MODEL_FAILED', model_failure: expected });
    expect(run.text).toContain(`connection refused at ${new URL(closedPortUrl).host}`);
    expect(run.text).not.toContain('/v1');
  });

  it('fails as MODEL_TIMEOUT within the per-request limit when the endpoint never answers', async () => {
    const run = await runAgainst(server.baseURL, [() => new Promise(() => undefined)]);

    expect(run.result.report).toMatchObject({
      error_code: 'MODEL_TIMEOUT',
      model_failure: { kind: 'TIMEOUT', http_status: null, error_class: 'ModelRequestTimeout', network_code: null },
    });
    expect(run.runItem).toMatchObject({ error_code: 'MODEL_TIMEOUT', model_failure: { kind: 'TIMEOUT' } });
    expect(Date.now() - run.startedAt).toBeLessThan(8_000 - 100);
    expect(run.text).toContain('no answer within 0.3 s (DIAGNOSIS_MODEL_TIMEOUT_MS)');
  });
});
