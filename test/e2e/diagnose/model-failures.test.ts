import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_MODEL_KEY, startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';

/** Put in everything the model endpoint sends; it must never reach a result, an item or a log line. */
const MARKER = 'E2E-ENDPOINT-MARKER-93c2';
const LAMBDA_MS = 8_000;

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const logs: string[] = [];
const originalLog = console.log;

beforeAll(async () => {
  world = await startE2eWorld({ DIAGNOSIS_MODEL_TIMEOUT_MS: '400' });
  console.log = (...parts: unknown[]) => void logs.push(parts.map(String).join(' '));
});
afterAll(async () => {
  console.log = originalLog;
  await world?.cleanup();
});

let counter = 0;
const conversation = e1001ScriptedConversation();
async function diagnose() {
  const runId = `e2e-model-${Date.now().toString(36)}-${counter++}`;
  const startedAt = Date.now();
  const result = (await world.handlers.diagnose(
    { runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query },
    lambdaContext(LAMBDA_MS),
  )) as DiagnosisResult;
  const items = (await world.items()).filter((item) => String(item.pk).endsWith(`#${runId}`));
  return { result, items, run: items.find((item) => item.entity === 'run'), elapsedMs: Date.now() - startedAt };
}

describe('the Diagnose Lambda when the model endpoint fails', () => {
  it('records the endpoint’s 401 and error class in the result and the run item, and none of its body or the key', async () => {
    world.server.script.push({ status: 401, body: { error: { message: `${MARKER} bad key ${E2E_MODEL_KEY}` } } });
    const { result, items, run } = await diagnose();

    const modelFailure = { kind: 'HTTP', http_status: 401, error_class: 'APICallError', network_code: null };
    expect(result).toMatchObject({
      status: 'FAILED',
      report: { kind: 'FAILED', error_code: 'MODEL_FAILED', model_failure: modelFailure },
    });
    expect(run).toMatchObject({ status: 'FAILED', error_code: 'MODEL_FAILED', model_failure: modelFailure });
    for (const trace of [JSON.stringify(result), JSON.stringify(items), logs.join('\n')]) {
      expect(trace).not.toContain(MARKER);
      expect(trace).not.toContain(E2E_MODEL_KEY);
    }
  });

  it('fails as MODEL_TIMEOUT long before the Lambda’s deadline when the endpoint never answers', async () => {
    world.server.script.push(() => new Promise(() => undefined));
    const { result, run, elapsedMs } = await diagnose();

    expect(result).toMatchObject({
      status: 'FAILED',
      report: { error_code: 'MODEL_TIMEOUT', model_failure: { kind: 'TIMEOUT', error_class: 'ModelRequestTimeout' } },
    });
    expect(run).toMatchObject({ status: 'FAILED', error_code: 'MODEL_TIMEOUT' });
    expect(elapsedMs).toBeLessThan(LAMBDA_MS);
  });
});
