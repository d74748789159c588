import { DiagnosisInputError, type DiagnosisInputErrorCode } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { noConclusionDraft, T0, testRun } from '../../../support/run-fixtures.ts';
import { textRound } from '../../../support/scripted-model.ts';

const PREVIOUS_TURN = {
  run_id: 'run-0',
  query: 'E1001 订单失败？',
  conclusion: 'payment-gateway 连接池过小',
  findings: ['连接池耗尽错误在 14:05 开始出现'],
  missing_info: [],
};

/** T0 (06:10 UTC) in the default time zone: the run's start as the model reads it. */
const NOW_AT_T0 = '2026-11-30T14:10:00+08:00';

const finalDraft = () => textRound(JSON.stringify(noConclusionDraft()));

function userMessages(prompt: readonly { role: string; content: unknown }[]) {
  return prompt.filter((message) => message.role === 'user');
}

async function expectInputError(code: DiagnosisInputErrorCode, options: Parameters<typeof diagnose>[1]) {
  const { outcome, model, audit } = await diagnose([finalDraft()], options);
  expect(outcome.ok).toBe(false);
  if (outcome.ok) return;
  expect(outcome.error).toBeInstanceOf(DiagnosisInputError);
  expect((outcome.error as DiagnosisInputError).code).toBe(code);
  expect(model.doGenerateCalls).toHaveLength(0);
  expect(audit.steps).toHaveLength(0);
}

describe('runDiagnosis — Requirement: input is only the current Query and an optional PreviousTurn', () => {
  it('gives the agent exactly the frozen previous turn and the query when a previous turn is supplied', async () => {
    const { outcome, model } = await diagnose([finalDraft()], {
      query: '那现在恢复了吗？',
      previousTurn: PREVIOUS_TURN,
    });

    expect(outcome.ok).toBe(true);
    const prompt = model.doGenerateCalls[0]?.prompt ?? [];
    expect(prompt.map((message) => message.role)).toEqual(['system', 'user']);
    expect(userMessages(prompt)[0]?.content).toEqual([
      {
        type: 'text',
        text: JSON.stringify({
          query: '那现在恢复了吗？',
          now: NOW_AT_T0,
          timezone: 'Asia/Shanghai',
          previous_turn: PREVIOUS_TURN,
        }),
      },
    ]);
  });

  it('sends previous_turn as null when none is supplied', async () => {
    const { model } = await diagnose([finalDraft()], { query: 'q' });
    expect(userMessages(model.doGenerateCalls[0]?.prompt ?? [])[0]?.content).toEqual([
      { type: 'text', text: `{"query":"q","now":"${NOW_AT_T0}","timezone":"Asia/Shanghai","previous_turn":null}` },
    ]);
  });

  it('passes the query byte for byte when it has surrounding whitespace and special characters', async () => {
    const query = '  E1001 订单失败\n\t"引号" \\ 反斜杠 😀  ';
    const { model } = await diagnose([finalDraft()], { query });
    const content = userMessages(model.doGenerateCalls[0]?.prompt ?? [])[0]?.content as { text: string }[];
    expect(JSON.parse(content[0]?.text ?? '').query).toBe(query);
  });

  it('rejects the query before any model call when it exceeds its UTF-8 byte limit', async () => {
    // 1,366 Chinese characters are 4,098 UTF-8 bytes: over the 4,096 default although only 1,366 characters long.
    await expectInputError('QUERY_TOO_LARGE', { query: '订'.repeat(1_366) });
  });

  it('accepts a query of exactly the byte limit', async () => {
    const { outcome } = await diagnose([finalDraft()], { query: 'a'.repeat(4_096) });
    expect(outcome.ok).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['spaces', '   '],
    ['newlines and tabs', '\n\t\r\n'],
    ['ideographic space', '\u3000\u3000'],
  ])('rejects a blank query (%s) before any model call', async (_label, query) => {
    await expectInputError('QUERY_BLANK', { query });
  });

  it.each([
    ['an unknown field', { ...PREVIOUS_TURN, raw_evidence: ['log line'] }],
    ['a missing field', { run_id: 'r', query: 'q', conclusion: null, findings: [] }],
    ['more than five findings', { ...PREVIOUS_TURN, findings: ['1', '2', '3', '4', '5', '6'] }],
    ['a wrong type', { ...PREVIOUS_TURN, conclusion: 42 }],
    ['an array', [PREVIOUS_TURN]],
    ['a string', 'previous conversation'],
  ])('rejects a previous turn with %s', async (_label, previousTurn) => {
    await expectInputError('PREVIOUS_TURN_INVALID', { previousTurn });
  });

  it('rejects a previous turn over its byte limit', async () => {
    await expectInputError('PREVIOUS_TURN_TOO_LARGE', {
      previousTurn: { ...PREVIOUS_TURN, conclusion: '结'.repeat(1_400) },
    });
  });

  it('rejects the serialized input over its byte limit when each part is within its own', async () => {
    await expectInputError('INPUT_TOO_LARGE', {
      query: 'q'.repeat(3_000),
      previousTurn: PREVIOUS_TURN,
      run: { limits: { maxInputBytes: 3_100 } },
    });
  });

  it('rejects a run whose deadline leaves less than the final round reserve', async () => {
    await expectInputError('DEADLINE_TOO_SHORT', { run: { deadlineAt: T0 + 19_999 } });
  });

  it('rejects a run whose deadline has passed', async () => {
    await expectInputError('DEADLINE_TOO_SHORT', { run: { deadlineAt: T0 - 1 } });
  });

  it('accounts the accepted input bytes and the Draft bytes against the run', async () => {
    const { outcome, run } = await diagnose([finalDraft()], { query: '订单' });
    expect(outcome.ok).toBe(true);
    expect(run.usage().inputBytes).toBe(
      Buffer.byteLength(`{"query":"订单","now":"${NOW_AT_T0}","timezone":"Asia/Shanghai","previous_turn":null}`),
    );
    expect(run.usage().outputBytes).toBe(Buffer.byteLength(JSON.stringify(noConclusionDraft())));
  });

  it('refuses a previous turn over a smaller maxPreviousTurnBytes the run was given', async () => {
    const previousTurn = { ...PREVIOUS_TURN, conclusion: '结'.repeat(200) };
    const { outcome } = await diagnose([finalDraft()], { previousTurn });
    expect(outcome.ok).toBe(true);
    await expectInputError('PREVIOUS_TURN_TOO_LARGE', { previousTurn, run: { limits: { maxPreviousTurnBytes: 600 } } });
  });
});

describe('runDiagnosis — Requirement: the model knows when "now" is, in the deployment’s time zone', () => {
  function userInput(prompt: readonly { role: string; content: unknown }[]) {
    const content = userMessages(prompt)[0]?.content as { text: string }[];
    return JSON.parse(content[0]?.text ?? '{}') as Record<string, unknown>;
  }

  it('tells the model the run’s start time with the Asia/Shanghai offset when no time zone is configured', async () => {
    const { model } = await diagnose([finalDraft()]);
    expect(userInput(model.doGenerateCalls[0]?.prompt ?? [])).toMatchObject({
      now: '2026-11-30T14:10:00+08:00',
      timezone: 'Asia/Shanghai',
    });
  });

  it('writes now in the run’s own time zone when one is configured', async () => {
    const { model } = await diagnose([finalDraft()], { run: { timeZone: 'America/New_York' } });
    expect(userInput(model.doGenerateCalls[0]?.prompt ?? [])).toMatchObject({
      now: '2026-11-30T01:10:00-05:00',
      timezone: 'America/New_York',
    });
  });

  it('takes now from when the run started, not from when the input is composed', async () => {
    const { model } = await diagnose([finalDraft()], { run: { startedAt: T0 - 60_000 } });
    expect(userInput(model.doGenerateCalls[0]?.prompt ?? []).now).toBe('2026-11-30T14:09:00+08:00');
  });

  it('sends byte-identical instructions to runs at different times and in different time zones', async () => {
    const early = await diagnose([finalDraft()]);
    const late = await diagnose([finalDraft()], {
      run: { now: () => T0 + 9 * 3_600_000, deadlineAt: T0 + 9 * 3_600_000 + 60_000, timeZone: 'Europe/Berlin' },
    });
    const system = (result: typeof early) => result.model.doGenerateCalls[0]?.prompt.find((m) => m.role === 'system');
    expect(userInput(late.model.doGenerateCalls[0]?.prompt ?? []).now).toBe('2026-11-30T16:10:00+01:00');
    expect(system(early)?.content).toEqual(expect.any(String));
    expect(system(late)?.content).toBe(system(early)?.content);
    expect(system(early)?.content).not.toContain('2026-11-30T14:10');
  });

  it('refuses a run context whose time zone is not a named IANA zone', () => {
    for (const timeZone of ['Mars/Olympus', '+08:00', '']) {
      expect(() => testRun({ timeZone })).toThrow(TypeError);
    }
  });
});
