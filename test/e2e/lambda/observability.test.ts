/**
 * The Diagnose Lambda's Powertools logger and EMF metrics through the real handler: one set of metrics per run (none
 * for a replay), in the `Diagnosis` namespace, with the outcome as the only dimension besides the service, and log
 * lines that carry the run id as a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const conversation = e1001ScriptedConversation();

beforeAll(async () => {
  world = await startE2eWorld();
});
afterAll(async () => {
  await world?.cleanup();
});

/** The functions' records since `from`: the world keeps every one (test/support/function-logs.ts). */
const parsed = (from: number) => world.logs.slice(from).map((line) => JSON.parse(line) as Record<string, unknown>);
const emf = (from: number) => parsed(from).filter((entry) => '_aws' in entry);

describe('the Diagnose Lambda’s logs and metrics', () => {
  it('emits one set of EMF metrics per run, none for a replay, and logs with the run id as a key', async () => {
    const runId = `obs-${Date.now().toString(36)}`;
    const payload = { runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query };
    world.server.script.push(...structuredClone(conversation.responses));
    const before = world.logs.length;
    await world.handlers.diagnose(payload, lambdaContext(60_000));

    const metrics = emf(before);
    expect(metrics).toHaveLength(1);
    const [blob] = metrics as [Record<string, unknown> & { _aws: { CloudWatchMetrics: unknown[] } }];
    expect(blob._aws.CloudWatchMetrics).toEqual([
      expect.objectContaining({ Namespace: 'Diagnosis', Dimensions: [['service', 'outcome']] }),
    ]);
    expect(blob).toMatchObject({
      service: 'diagnosis-agent',
      outcome: 'PUBLISHED',
      Runs: 1,
      ModelCalls: 5,
      ToolCalls: 4,
      ToolCallsReady: 4,
      ToolCallsError: 0,
      ToolCallsRejected: 0,
      stopReason: 'NONE',
      errorCode: 'NONE',
    });
    expect(blob.CachedInputTokens).toBeGreaterThan(0);
    expect(typeof blob.RunDuration).toBe('number');
    expect(JSON.stringify(blob._aws)).not.toMatch(/runId|enterprise|E1001/);

    const finished = parsed(before).find((entry) => entry.message === 'diagnosis finished');
    expect(finished).toMatchObject({ level: 'INFO', runId, function: 'Diagnose', status: 'PUBLISHED' });
    expect(JSON.stringify(parsed(before))).not.toContain(conversation.query);

    const replayFrom = world.logs.length;
    await world.handlers.diagnose(payload, lambdaContext(60_000));
    expect(emf(replayFrom)).toHaveLength(0);
  });
});
