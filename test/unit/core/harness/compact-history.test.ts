import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { verifyExecutionEvidence } from '@diagnosis/core';
import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  CALL_RECORD_MAX_INPUT_BYTES,
  CALL_RECORD_NOTE,
  CALL_RECORD_STATUS,
  COMPACT_HISTORY_AT_BYTES,
  compactHistory,
} from '../../../../packages/core/src/harness/compact-history.ts';
import { diagnose } from '../../../support/diagnose.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound } from '../../../support/scripted-model.ts';

/** `size` distinct ERROR lines of `length` characters each. */
const logs = (size: number, length: number) => {
  let call = 0;
  return () => {
    call += 1;
    return {
      status: 'OK' as const,
      data: {
        matched: size,
        lines: Array.from({ length: size }, (_, index) => ({
          timestamp: `2026-11-30T14:${String(call).padStart(2, '0')}:${String(index).padStart(2, '0')}+08:00`,
          level: 'ERROR',
          service: 'order-service',
          message: `pool exhausted call ${call} line ${index} `.padEnd(length, 'x'),
        })),
      },
    };
  };
};

const idsOf = (count: number) => Array.from({ length: count }, (_, index) => `call-${index + 1}`);
const script = (ids: string[], citing: string[]) => [
  ...ids.map((id, index) =>
    toolRound([
      {
        id,
        name: 'query_logs',
        input: envelope(
          { ...LOGS_INPUT, keyword: `k${index}` },
          index === 0 ? undefined : { tool_call_id: ids[index - 1] ?? '', evaluation: 'GAINED' },
        ),
      },
    ]),
  ),
  textRound(draftAnswer(supportedDraft(citing))),
];

/** The call record a request carried (the first call's result once folded), or null; each call as an object. */
function recordIn(prompt: LanguageModelV4Prompt): { text: string; calls: Record<string, unknown>[] } | null {
  const record = observationsIn(prompt).find((observation) => observation.evidence_status === CALL_RECORD_STATUS);
  if (record === undefined) return null;
  const columns = record.columns as string[];
  const firsts = new Map<unknown, Record<string, unknown>>();
  let above: unknown = null;
  const calls = (record.calls as unknown[][]).map((row) => {
    const listed = Object.fromEntries(columns.map((column, index) => [column, row[index]]));
    // NOTE: a row whose tool is null names the same tool as the row above.
    const call: Record<string, unknown> = { ...listed, tool: listed.tool ?? above };
    above = call.tool;
    const first = firsts.get(call.tool);
    if (first === undefined) {
      if (call.input !== null && typeof call.input === 'object') firsts.set(call.tool, call.input as never);
      return call;
    }
    // NOTE: a tool's later call lists only what differs from its first call's input (null: a field it lacks).
    const whole = { ...first, ...(call.input as object) } as Record<string, unknown>;
    return { ...call, input: Object.fromEntries(Object.entries(whole).filter(([, value]) => value !== null)) };
  });
  return { text: JSON.stringify(record), calls };
}

/** The observations a request carried in full (not the record). */
const fullIn = (prompt: LanguageModelV4Prompt) =>
  observationsIn(prompt).filter((observation) => observation.evidence_status !== CALL_RECORD_STATUS);

const limits = (calls: number) => ({
  limits: { maxToolCalls: calls, maxModelCalls: calls + 2, maxTotalTokens: 1_000_000 },
});

describe('compactHistory — through runDiagnosis', () => {
  it('folds every judged round into the call record once the history passes the bound, keeping the newest in full', async () => {
    const ids = idsOf(6);
    const { model, outcome } = await diagnose(script(ids, ['call-1', 'call-6']), {
      handlers: { query_logs: logs(20, 400) },
      run: limits(6),
    });
    expect(outcome.ok && outcome.result.stopReason).toBe('TOOL_CALL_BUDGET');
    const calls = model.doGenerateCalls;
    const shapes = calls.map((call) => ({
      full: fullIn(call.prompt).map((observation) => observation.ref),
      recorded: recordIn(call.prompt)?.calls.map((entry) => entry.ref) ?? [],
    }));
    // An 8 KB observation alone is past the bound: from the third request on, only the newest round is sent in full.
    expect(shapes).toEqual([
      { full: [], recorded: [] },
      { full: [1], recorded: [] },
      { full: [2], recorded: [1] },
      { full: [3], recorded: [1, 2] },
      { full: [4], recorded: [1, 2, 3] },
      { full: [5], recorded: [1, 2, 3, 4] },
      { full: [6], recorded: [1, 2, 3, 4, 5] },
    ]);
    expect(COMPACT_HISTORY_AT_BYTES).toBe(5 * 1024);
    const last = recordIn(calls.at(-1)?.prompt ?? []);
    expect(JSON.parse(last?.text ?? '{}')).toMatchObject({
      tool_call_id: 'call-1',
      evidence_status: 'COMPACTED',
      message: CALL_RECORD_NOTE,
      columns: ['ref', 'tool', 'input', 'evidence_status', 'rows'],
    });
    // NOTE: each call is a row of the columns, its keys not repeated, led by the number its observation showed (the
    // Draft cites it by that; its tool_call_id, which nothing the model writes names once it is judged, is not
    // listed); a later call lists only the input fields that differ from its tool's first call (the same service and
    // window, another keyword), and its tool as null when the row above names the same one.
    const rows = JSON.parse(last?.text ?? '{}').calls;
    expect(rows[0]).toEqual([1, 'query_logs', { ...LOGS_INPUT, keyword: 'k0' }, 'OK', 16]);
    expect(rows[1]).toEqual([2, null, { keyword: 'k1' }, 'OK', 16]);
    expect(last?.text).not.toContain('call-2');
    // NOTE: the prompt cache: the first call stays where it was, so every request begins with the first request's
    // whole prompt; and each record begins with the whole record the request before sent.
    const firstPrompt = JSON.stringify(calls[0]?.prompt).slice(0, -1);
    for (const call of calls) expect(JSON.stringify(call.prompt).startsWith(firstPrompt)).toBe(true);
    for (let index = 3; index < calls.length; index += 1) {
      const before = recordIn(calls[index - 1]?.prompt ?? [])?.text ?? '';
      expect(recordIn(calls[index]?.prompt ?? [])?.text.startsWith(before.slice(0, -2))).toBe(true);
    }
  });

  it('keeps every request near the bound however many calls a run makes (linear input)', async () => {
    const ids = idsOf(12);
    const { model } = await diagnose(script(ids, ['call-12']), {
      handlers: { query_logs: logs(20, 400) },
      run: limits(12),
    });
    const sizes = model.doGenerateCalls.map((call) => JSON.stringify(call.prompt).length);
    const growth = (sizes.at(-1) ?? 0) - (sizes[3] ?? 0);
    // Eight more calls add eight record entries (each well under 400 bytes), never another observation.
    expect(sizes).toHaveLength(13);
    expect(growth).toBeLessThan(8 * 400);
  });

  it('leaves a folded call citable: the EvidenceGuard accepts a Draft citing it', async () => {
    const { outcome } = await diagnose(script(idsOf(6), ['call-1', 'call-2']), {
      handlers: { query_logs: logs(20, 400) },
      run: limits(6),
    });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.draft?.analysis[0]?.tool_call_ids).toEqual(['call-1', 'call-2']);
    expect(verifyExecutionEvidence(outcome.result)).toMatchObject({ ok: true });
  });

  it('never folds a run whose history stays under the bound', async () => {
    const { model } = await diagnose(script(idsOf(2), ['call-1']), {
      handlers: { query_logs: logs(2, 40) },
      run: limits(2),
    });
    expect(model.doGenerateCalls.every((call) => recordIn(call.prompt) === null)).toBe(true);
    expect(fullIn(model.doGenerateCalls.at(-1)?.prompt ?? []).map((o) => o.ref)).toEqual([1, 2]);
  });
});

describe('compactHistory', () => {
  const prompt: ModelMessage = { role: 'user', content: '{"query":"E1001 的订单为什么失败？"}' };
  // Each round's observation shows the number its call is cited by: a → 1, b → 2, …
  const round = (id: string, input: unknown, data: unknown, toolName = 'query_logs'): ModelMessage[] => [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName, input }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName,
          output: {
            type: 'json',
            value: { tool_call_id: id, ref: id.charCodeAt(0) - 96, evidence_status: 'OK', data } as never,
          },
        },
      ],
    },
  ];
  const big = { matched: 1, lines: [{ message: 'x'.repeat(COMPACT_HISTORY_AT_BYTES) }] };

  it('returns the same history when it is under the bound, or holds one round', () => {
    const small = [prompt, ...round('a', { input: {} }, { lines: [] }), ...round('b', { input: {} }, { lines: [] })];
    const single = [prompt, ...round('a', { input: {} }, big)];

    expect(compactHistory(small)).toBe(small);
    expect(compactHistory(single)).toBe(single);
  });

  it('reads its record back from a history that already carries it, and extends it at its end', () => {
    const first = compactHistory([prompt, ...round('a', { input: { k: 1 } }, big), ...round('b', { input: {} }, big)]);
    const again = compactHistory([...first, ...round('c', { input: {} }, big)]);
    const record = (messages: ModelMessage[]) => JSON.stringify(messages[2]);

    expect(first).toHaveLength(5);
    expect(first.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(again.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(again[1]).toBe(first[1]);
    expect(record(again).startsWith(record(first).slice(0, -10))).toBe(true);
    expect(recordIn(again as never)?.calls.map((call) => call.ref)).toEqual([1, 2]);
    expect(compactHistory(again)).toBe(again);
  });

  it('lists a tool’s later calls by what differs from its first call, a field one lacks as null', () => {
    const input = (keyword: string, service = 'order-service') => ({ input: { service, keyword } });
    const first = compactHistory([
      prompt,
      ...round('a', input('k1'), big),
      ...round('b', input('k1b'), big),
      ...round('c', input('k2'), big),
      ...round('d', { input: { service: 'order-service', level: 'ERROR' } }, big),
      ...round('e', input('k4'), big),
    ]);
    const sent = (messages: ModelMessage[]) => JSON.parse(JSON.stringify(observationsIn([messages[2]] as never)[0]));
    expect(sent(first).calls.map((row: unknown[]) => row[2])).toEqual([
      input('k1').input,
      { keyword: 'k1b' },
      { keyword: 'k2' },
      { level: 'ERROR', keyword: null },
    ]);
    expect(recordIn(first as never)?.calls.map((call) => call.input)).toEqual([
      input('k1').input,
      input('k1b').input,
      input('k2').input,
      { service: 'order-service', level: 'ERROR' },
    ]);
    // A listed row never changes: the next fold only appends.
    const again = compactHistory([...first, ...round('f', input('k5', 'payment-gateway'), big)]);
    const before = JSON.stringify(sent(first).calls);
    expect(JSON.stringify(sent(again).calls).startsWith(before.slice(0, -1))).toBe(true);
    expect(sent(again).calls.at(-1)).toEqual([5, null, { keyword: 'k4' }, 'OK', 1]);
  });

  it('lists a call whose input is too large without its input', () => {
    const huge = { input: { keyword: 'y'.repeat(CALL_RECORD_MAX_INPUT_BYTES) } };
    const folded = compactHistory([prompt, ...round('a', huge, big), ...round('b', { input: {} }, big)]);

    expect(recordIn(folded as never)?.calls[0]).toEqual({
      ref: 1,
      tool: 'query_logs',
      input: null,
      evidence_status: 'OK',
      rows: 1,
    });
  });

  it('names a row’s tool unless the row above names the same one, and diffs each tool against its own first call', () => {
    const logs = (keyword: string) => ({ input: { service: 'order-service', keyword } });
    const knowledge = (query: string) => ({ input: { query, top_k: 3 } });
    const folded = compactHistory([
      prompt,
      ...round('a', logs('k1'), big),
      ...round('b', knowledge('pool'), big, 'lookup_knowledge'),
      ...round('c', knowledge('timeout'), big, 'lookup_knowledge'),
      ...round('d', logs('k2'), big),
      ...round('e', logs('k3'), big),
    ]);
    const rows = JSON.parse(JSON.stringify(observationsIn([folded[2]] as never)[0])).calls;

    expect(rows).toEqual([
      [1, 'query_logs', logs('k1').input, 'OK', 1],
      [2, 'lookup_knowledge', knowledge('pool').input, 'OK', 1],
      [3, null, { query: 'timeout' }, 'OK', 1],
      [4, 'query_logs', { keyword: 'k2' }, 'OK', 1],
    ]);
    // Read back and extended: the row above the new one is a null, resolved to its tool.
    const again = compactHistory([...folded, ...round('f', logs('k4'), big)]);
    expect(JSON.parse(JSON.stringify(observationsIn([again[2]] as never)[0])).calls.slice(4)).toEqual([
      [5, null, { keyword: 'k3' }, 'OK', 1],
    ]);
  });
});
