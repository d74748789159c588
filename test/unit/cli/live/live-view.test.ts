import type { ModelStepEvent, ToolInvocationEvent } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { createLiveView } from '../../../../packages/cli/src/live/live-view.ts';

const step = (stepNumber: number, overrides: Partial<ModelStepEvent> = {}) =>
  ({
    stepNumber,
    usage: { inputTokens: 3_120, outputTokens: 96 },
    toolCalls: [{ toolCallId: `call_${stepNumber}`, toolName: 'query_logs' }],
    startedAt: 1_000,
    endedAt: 3_345,
    ...overrides,
  }) as ModelStepEvent;

const tool = (toolCallId: string, input: unknown) =>
  ({
    toolCallId,
    toolName: 'query_logs',
    input,
    observation: { tool_call_id: toolCallId, evidence_status: 'OK', data: { matched: 67, lines: [] } },
    startedAt: 10,
    endedAt: 14,
  }) as unknown as ToolInvocationEvent;

const logs = {
  service: 'payment-gateway',
  start_time: '2026-11-30T14:00:00+08:00',
  end_time: '2026-11-30T15:00:00+08:00',
};

describe('createLiveView', () => {
  it('prints each round with its real duration, each tool call in a few words, and the model’s judgement', () => {
    let text = '';
    const view = createLiveView({ write: (chunk) => (text += chunk), spinner: false });
    view.listener.onModelStep?.(step(1));
    view.listener.onToolInvocation?.(tool('call_1', { input: logs }));
    view.listener.onModelStep?.(
      step(2, { usage: { inputTokens: 10, outputTokens: 5, cachedInputTokens: 8 }, endedAt: 1_012 }),
    );
    view.listener.onToolInvocation?.(
      tool('call_2', { previous_observation: { tool_call_id: 'call_1', evaluation: 'NO_GAIN' }, input: logs }),
    );
    view.listener.onModelStep?.(step(3, { role: 'JUDGE', toolCalls: [] }));
    view.stop();
    expect(text.split('\n')).toEqual([
      '  ▸ round 1  3,120 in / 96 out tokens  2.3 s  → query_logs',
      '    ⚙ query_logs payment-gateway 2026-11-30 14:00–15:00 → 67 matching lines, 0 shown  4 ms  call_1',
      '  ▸ round 2  10 in, 8 cached / 5 out tokens  12 ms  → query_logs',
      '      ↳ the model judged query_logs call_1: NO_GAIN',
      '    ⚙ query_logs payment-gateway 2026-11-30 14:00–15:00 → 67 matching lines, 0 shown  4 ms  call_2',
      '  ▸ judge (SemanticGuard) 3  3,120 in / 96 out tokens  2.3 s  verdicts',
      '',
    ]);
  });

  it('never prints a tool call id the harness would refuse', () => {
    let text = '';
    const view = createLiveView({ write: (chunk) => (text += chunk), spinner: false });
    view.listener.onToolInvocation?.(
      tool('x\u001b[2Jy', { previous_observation: { tool_call_id: 'a#b', evaluation: 'GAINED' }, input: logs }),
    );
    expect(text).toContain('(invalid id)');
    expect(text).not.toMatch(/\p{Cc}(?<!\n)/u);
  });
});
