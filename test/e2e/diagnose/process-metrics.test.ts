/**
 * The process scorecard of a run through the real Diagnose and GetRun handlers: stored on the run item when the run
 * completes and shown by `GET /runs/{id}`. Its metrics are emitted from the table's stream, for every run whoever ended
 * it (test/integration/delivery/run-finished-stream.test.ts), so Diagnose's own record carries the run metrics only:
 * a run it completed is never counted twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const conversation = e1001ScriptedConversation();

beforeAll(async () => {
  world = await startE2eWorld();
});
afterAll(async () => {
  await world?.cleanup();
});

describe('the process scorecard of a run', () => {
  it('is stored when the run completes and shown by GET /runs/{id}; Diagnose emits the run metrics, not these', async () => {
    const runId = `process-${Date.now().toString(36)}`;
    world.server.script.push(...structuredClone(conversation.responses));
    const before = world.logs.length;
    await world.handlers.diagnose(
      { runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query },
      lambdaContext(60_000),
    );
    const response = (await world.handlers.getRun(
      httpEvent({ method: 'GET', pathParameters: { runId } }),
      lambdaContext(5_000),
    )) as { body: string };
    const card = JSON.parse(response.body).processScorecard;
    expect(card).toMatchObject({
      version: 1,
      rounds: 5,
      judgeCalls: 0,
      answeredWithoutTools: false,
      toolCalls: { total: 4, executed: 4, evidence: 4, refused: 0, redundant: 0, unproductive: 0 },
      guards: { removedItems: 0 },
    });
    const [emf] = world.logs
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => '_aws' in entry);
    expect(emf).toMatchObject({ outcome: 'PUBLISHED', Runs: 1, ToolCalls: card.toolCalls.total });
    expect(emf).not.toHaveProperty('RedundantToolCalls');
    expect(emf).not.toHaveProperty('ToolTime');
  });
});
