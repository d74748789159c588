/**
 * Hostile model: a call to a tool that does not exist never reaches the tool boundary. The AI SDK answers
 * it itself with a tool-error whose text is the SDK's exception message, echoing the model-chosen tool name
 * verbatim and unbounded. So (1) raw exception text reaches the model, and (2) the "observation is at most 8 KiB"
 * contract does not hold: the model's next request carries a tool message as large as the name it invented.
 */
import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
beforeAll(async () => {
  world = await startE2eWorld();
});
afterAll(async () => {
  await world?.cleanup();
});

const toolMessages = (index: number) =>
  ((world.server.requests[index]?.messages ?? []) as { role: string; content: unknown }[])
    .filter((message) => message.role === 'tool')
    .map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)));

describe('a call to a tool that does not exist', () => {
  it('gets a bounded observation with no exception text', async () => {
    const runId = `rt-unknown-${Date.now().toString(36)}`;
    const name = `run_shell_${'x'.repeat(20_000)}`;
    const before = world.server.requests.length;
    world.server.script.push(
      wireToolCalls([{ id: 'call_1', name, arguments: { input: { command: 'id' } } }]),
      wireText(JSON.stringify(noConclusionDraft())),
    );
    const result = (await world.handlers.diagnose(
      { runId, sessionId: 's', enterpriseId: 'E1001', query: '订单失败' },
      lambdaContext(60_000),
    )) as DiagnosisResult;
    expect(result.status).not.toBe('FAILED');
    const [observation = ''] = toolMessages(before + 1);
    // Summarised so a failure does not print the 20 KB name.
    expect({
      sdkExceptionText: /AI_NoSuchToolError|Model tried to call|Available tools/.test(observation),
      within8KiB: Buffer.byteLength(observation) <= 8 * 1024,
      head: observation.slice(0, 60),
    }).toMatchObject({ sdkExceptionText: false, within8KiB: true });
  });
});
