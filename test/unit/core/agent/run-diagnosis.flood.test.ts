import { DEFAULT_RUN_LIMITS } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { draftAnswer, envelope, KNOWLEDGE_INPUT, LOGS_INPUT, supportedDraft } from '../../../support/run-fixtures.ts';
import { type ScriptedCall, textRound, toolRound } from '../../../support/scripted-model.ts';

/** `count` knowledge lookups with distinct queries (valid calls, as long as no result waits for an evaluation). */
const lookups = (count: number, prefix = 'call'): ScriptedCall[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index + 1}`,
    name: 'lookup_knowledge',
    input: envelope({ ...KNOWLEDGE_INPUT, query: `订单失败 ${index}` }),
  }));

/** `count` calls whose input fails the tool's schema (each refused as INVALID_INPUT). */
const invalid = (count: number, prefix = 'bad'): ScriptedCall[] =>
  Array.from({ length: count }, (_, index) => ({
    id: `${prefix}-${index + 1}`,
    name: 'query_logs',
    input: envelope({ ...LOGS_INPUT, level: 'LOUD' }),
  }));

describe('runDiagnosis — a model that floods the tool boundary', () => {
  it('discards a round that asks for more tool calls than a round may: none runs, the run stops ROUND_TOOL_CALL_LIMIT', async () => {
    const calls = [...lookups(150), ...invalid(50)];
    const { outcome, model, adapterCalls, audit } = await diagnose([toolRound(calls), textRound('{}')]);

    expect(outcome.ok && outcome.result).toMatchObject({ draft: null, stopReason: 'ROUND_TOOL_CALL_LIMIT' });
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(adapterCalls).toHaveLength(0);
    // The audit is complete and bounded: the round's step names every call it asked for; no call reached the boundary.
    expect(audit.steps).toHaveLength(1);
    expect(audit.steps[0]?.toolCalls).toHaveLength(200);
    expect(audit.tools).toHaveLength(0);
    expect(outcome.ok && outcome.result.progress).toMatchObject({ toolCalls: 0, rejectedToolCalls: 0 });
  });

  it('counts calls to tools that do not exist toward the round’s limit', async () => {
    const unknown = Array.from({ length: 17 }, (_, index) => ({ id: `x-${index}`, name: 'drop_table', input: {} }));
    const { outcome, audit } = await diagnose([toolRound(unknown), textRound('{}')]);

    expect(outcome.ok && outcome.result.stopReason).toBe('ROUND_TOOL_CALL_LIMIT');
    expect(audit.tools).toHaveLength(0);
  });

  it('handles a round of exactly the limit as usual', async () => {
    const { outcome, adapterCalls, audit } = await diagnose(
      [toolRound(lookups(DEFAULT_RUN_LIMITS.maxToolCallsPerRound)), textRound(draftAnswer(supportedDraft(['call-1'])))],
      { handlers: { lookup_knowledge: () => ({ status: 'EMPTY' }) } },
    );

    expect(DEFAULT_RUN_LIMITS.maxToolCallsPerRound).toBe(16);
    // Empty results saturate collection after two calls; the other 14 are answered STOP_REQUIRED, each audited.
    expect(adapterCalls).toHaveLength(2);
    expect(audit.tools).toHaveLength(16);
    expect(outcome.ok && outcome.result.stopReason).not.toBe('ROUND_TOOL_CALL_LIMIT');
  });

  it('stops the run once the boundary refused maxRejectedToolCalls calls, auditing exactly that many refusals', async () => {
    const { outcome, model, audit } = await diagnose(
      [
        toolRound(invalid(2, 'r1')),
        toolRound([...invalid(2, 'r2'), ...lookups(1, 'late')]),
        textRound(draftAnswer(supportedDraft(['late-1']))),
      ],
      { run: { limits: { maxRejectedToolCalls: 3 } } },
    );

    expect(outcome.ok && outcome.result).toMatchObject({ draft: null, stopReason: 'REJECTED_CALL_LIMIT' });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(audit.tools.map((event) => [event.toolCallId, event.disposition, event.code])).toEqual([
      ['r1-1', 'REJECTED', 'INVALID_INPUT'],
      ['r1-2', 'REJECTED', 'INVALID_INPUT'],
      ['r2-1', 'REJECTED', 'INVALID_INPUT'],
    ]);
    // The calls after the third refusal never reached the boundary; the round's step still names them.
    expect(audit.steps[1]?.toolCalls.map((call) => call.toolCallId)).toEqual(['r2-1', 'r2-2', 'late-1']);
    expect(outcome.ok && outcome.result.progress.rejectedToolCalls).toBe(3);
  });

  it('counts only refusals toward that limit, never executed or stopped calls', async () => {
    const { outcome, adapterCalls, audit } = await diagnose(
      [toolRound([...invalid(1), ...lookups(10)]), textRound(draftAnswer(supportedDraft(['call-1'])))],
      {
        run: { limits: { maxRejectedToolCalls: 2, maxToolCalls: 3, noGainStopStreak: 20 } },
        handlers: { lookup_knowledge: () => ({ status: 'EMPTY' }) },
      },
    );

    // One refusal, three executed calls, seven answered STOP_REQUIRED: the run goes on to its Draft.
    expect(adapterCalls).toHaveLength(3);
    expect(audit.tools.map((event) => event.disposition)).toEqual([
      'REJECTED',
      ...Array(3).fill('EXECUTED'),
      ...Array(7).fill('STOPPED'),
    ]);
    expect(outcome.ok && outcome.result).toMatchObject({ stopReason: 'TOOL_CALL_BUDGET' });
    expect(outcome.ok && outcome.result.draft).not.toBeNull();
  });
});
