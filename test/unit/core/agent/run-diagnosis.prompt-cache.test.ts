import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import {
  draftAnswer,
  envelope,
  KNOWLEDGE_INPUT,
  LOGS_INPUT,
  supportedDraft,
  T0,
} from '../../../support/run-fixtures.ts';
import { textRound, toolRound } from '../../../support/scripted-model.ts';

const script = () => [
  toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
  toolRound([
    { id: 'call-2', name: 'query_logs', input: envelope(LOGS_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }) },
  ]),
  textRound(draftAnswer(supportedDraft(['call-1', 'call-2']))),
];

describe('runDiagnosis — Requirement: the provider can cache the prefix every round shares', () => {
  it('sends byte-identical instructions and tool schemas in every round of every run', async () => {
    const first = await diagnose(script());
    const second = await diagnose(script(), {
      run: { now: () => T0 + 3_600_000, deadlineAt: T0 + 3_600_000 + 60_000, timeZone: 'America/New_York' },
    });
    const calls = [...first.model.doGenerateCalls, ...second.model.doGenerateCalls];
    const collecting = calls.filter((call) => (call.tools ?? []).length > 0);
    expect(calls).toHaveLength(6);
    expect(collecting).toHaveLength(6);
    const tools = new Set(collecting.map((call) => JSON.stringify(call.tools)));
    const instructions = new Set(calls.map((call) => JSON.stringify(call.prompt[0])));
    expect(tools.size).toBe(1);
    expect(instructions.size).toBe(1);
  });

  it('keeps every request a continuation of the one before, the forced final round included', async () => {
    const { model, outcome } = await diagnose(
      [
        toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
        toolRound([
          {
            id: 'call-2',
            name: 'query_logs',
            input: envelope(LOGS_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
          },
        ]),
        textRound(draftAnswer(supportedDraft(['call-1', 'call-2']))),
      ],
      { run: { limits: { maxToolCalls: 2 } } },
    );
    expect(outcome.ok && outcome.result.stopReason).toBe('TOOL_CALL_BUDGET');
    const calls = model.doGenerateCalls;
    expect(calls).toHaveLength(3);
    for (const [index, call] of calls.entries()) {
      if (index === 0) continue;
      const previous = calls[index - 1];
      expect(JSON.stringify(call.tools)).toBe(JSON.stringify(previous?.tools));
      // The previous request's whole prompt is the start of this one (its answer and the observations follow).
      expect(JSON.stringify(call.prompt.slice(0, previous?.prompt.length))).toBe(JSON.stringify(previous?.prompt));
    }
    expect(calls[2]?.toolChoice).toEqual({ type: 'none' });
  });

  it('offers the model the tool schemas without the keywords it does not use', async () => {
    const { model } = await diagnose(script());
    const sent = JSON.stringify(model.doGenerateCalls[0]?.tools);
    for (const keyword of ['$schema', 'additionalProperties', 'minLength', 'maxLength', 'pattern', 'propertyNames']) {
      expect(sent).not.toContain(`"${keyword}"`);
    }
    // The bounds the model must know are in the descriptions.
    expect(sent).toContain('返回条数 1–5');
    expect(sent).toContain('窗口不超过 24 小时');
  });
});
