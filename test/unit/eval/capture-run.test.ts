import type { RunFeedback, StoredRun } from '@diagnosis/core';
import type { StoredStep, StoredToolInvocation } from '@diagnosis/core/store';
import { buildCapturedScenario, CaptureError, keywordsOf } from '@diagnosis/eval';
import { describe, expect, it } from 'vitest';
import { envelope, LOGS_INPUT, supportedDraft } from '../../support/run-fixtures.ts';
import { storedRun } from '../../support/stored-run.ts';

type Audit = Parameters<typeof buildCapturedScenario>[0];
const OPTIONS = {
  id: 'captured-r1',
  timeZone: 'Asia/Shanghai',
  sourceName: 'table t',
  capturedAt: '2026-12-01T00:00:00.000Z',
};
const CONCLUSION = 'payment-gateway 2.14.0 将 db.pool.max_size 设为 5，连接池耗尽导致订单失败';

function run(overrides: Partial<StoredRun> = {}): StoredRun {
  const draft = { ...supportedDraft(['call-1']), conclusion: CONCLUSION };
  const publishedResult = overrides.publishedResult ?? {
    draft,
    citations: [{ tool_call_id: 'call-1', tool_name: 'query_logs' as const, empty: false }],
  };
  return storedRun({
    runId: 'r1',
    status: 'SUCCEEDED',
    query: 'E1001 的订单从 14:05 开始失败，为什么？',
    draft,
    conclusion: CONCLUSION,
    publishedResult,
    report: { kind: 'DIAGNOSIS', ...publishedResult },
    createdAt: '2026-11-30T06:30:00.000Z',
    endedAt: '2026-11-30T06:31:00.000Z',
    ...overrides,
  });
}

const step = (stepNumber: number, overrides: Partial<StoredStep> = {}): StoredStep => ({
  entity: 'agent_step',
  runId: 'r1',
  stepNumber,
  role: 'AGENT',
  modelId: 'deepseek-v4-flash',
  finishReason: 'tool-calls',
  inputTokens: 1_000,
  outputTokens: 50,
  reasoningTokens: 20,
  cachedInputTokens: 100,
  usageEstimated: false,
  reasoningAvailable: true,
  contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
  contentBytes: 1,
  toolCalls: [],
  toolCallsTotal: 0,
  startedAt: '2026-11-30T06:30:00.250Z',
  endedAt: '2026-11-30T06:30:01.000Z',
  ...overrides,
});

const tool = (overrides: Partial<StoredToolInvocation> = {}): StoredToolInvocation => ({
  entity: 'tool_invocation',
  runId: 'r1',
  toolCallId: 'call-1',
  toolName: 'query_logs',
  stepNumber: 1,
  disposition: 'EXECUTED',
  status: 'READY',
  empty: false,
  code: null,
  input: envelope(LOGS_INPUT),
  inputTruncated: false,
  observation: { tool_call_id: 'call-1', evidence_status: 'OK', data: { matched: 1, lines: [] } },
  result: null,
  resultTruncated: false,
  errorDetail: null,
  startedAt: '2026-11-30T06:30:01.000Z',
  endedAt: '2026-11-30T06:30:01.100Z',
  ...overrides,
});

const rating = (overrides: Partial<RunFeedback> = {}): RunFeedback => ({
  runId: 'r1',
  enterpriseId: 'E1001',
  caller: 'arn:aws:sts::1:assumed-role/Ops/alice',
  callerKey: 'a',
  sequence: 1,
  verdict: 'CORRECT',
  rootCause: null,
  note: null,
  createdAt: '2026-11-30T07:00:00.000Z',
  ...overrides,
});

const ARGUMENTS =
  '{"input": {"service":"order-service", "start_time":"2026-11-30T14:00:00+08:00","end_time":"2026-11-30T15:00:00+08:00","level":"ERROR"}}';

function audit(overrides: Partial<Audit> = {}): Audit {
  return {
    run: run(),
    steps: [
      step(1, { toolCalls: [{ toolCallId: 'call-1', toolName: 'query_logs' }], toolCallsTotal: 1 }),
      step(2, { finishReason: 'stop', startedAt: '2026-11-30T06:30:02.000Z', endedAt: '2026-11-30T06:30:03.000Z' }),
    ],
    tools: [tool()],
    reasoning: [
      {
        entity: 'agent_reasoning_audit',
        runId: 'r1',
        stepNumber: 1,
        role: 'AGENT',
        reasoningContent: '先查日志',
        assistantText: `我先看错误日志。\n[tool_call call-1] query_logs ${ARGUMENTS}`,
        contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
        contentBytes: 1,
      },
      {
        entity: 'agent_reasoning_audit',
        runId: 'r1',
        stepNumber: 2,
        role: 'AGENT',
        reasoningContent: '',
        assistantText: '{"conclusion":"…"}',
        contentSource: 'ASSISTANT_TEXT',
        contentBytes: 1,
      },
    ],
    feedback: [rating()],
    previous: null,
    ...overrides,
  };
}

describe('buildCapturedScenario', () => {
  it('makes a CORRECT run’s conclusion keywords the root cause, at the run’s own time in its time zone', () => {
    const { scenario, recording } = buildCapturedScenario(audit(), OPTIONS);
    expect(scenario).toMatchObject({
      id: 'captured-r1',
      category: 'logs',
      enterpriseId: 'E1001',
      now: '2026-11-30T14:30:00+08:00',
      timeZone: 'Asia/Shanghai',
      expected: {
        outcome: 'DIAGNOSIS',
        rootCause: { anyOf: [['db.pool.max_size', 'payment-gateway', '2.14.0']] },
        mustNotClaim: [],
      },
      capture: { runId: 'r1', feedback: { verdict: 'CORRECT', rootCause: null }, original: { status: 'PUBLISHED' } },
    });
    expect((scenario.expected as Record<string, unknown>).scripted).toBeUndefined();
    expect(recording).toMatchObject({
      kind: 'recorded',
      enterpriseId: 'E1001',
      calls: [{ toolName: 'query_logs', input: LOGS_INPUT }],
    });
  });

  it('turns a WRONG run’s conclusion into what must not be claimed and the responder’s cause into the root cause', () => {
    const long = `${CONCLUSION}${'，并且'.repeat(100)}`;
    const wrong = audit({
      run: run({ publishedResult: { draft: { ...supportedDraft(['call-1']), conclusion: long }, citations: [] } }),
      feedback: [
        rating({ verdict: 'CORRECT' }),
        rating({ verdict: 'WRONG', rootCause: 'TLS 证书过期', createdAt: '2026-11-30T08:00:00.000Z' }),
      ],
    });
    const { scenario } = buildCapturedScenario(wrong, OPTIONS);
    expect(scenario.expected).toEqual({
      outcome: 'DIAGNOSIS',
      rootCause: { anyOf: [['TLS']] },
      mustNotClaim: [long.slice(0, 200)],
      requiredEvidence: [],
      scripted: { verdict: 'CONFIDENTLY_WRONG', why: expect.stringContaining('rated WRONG') },
    });
  });

  it('says what the recording scores offline when the run itself does not meet the rating (PARTIALLY_CORRECT)', () => {
    const partly = audit({ feedback: [rating({ verdict: 'PARTIALLY_CORRECT', rootCause: 'TLS 证书过期' })] });
    const { scenario } = buildCapturedScenario(partly, OPTIONS);
    expect(scenario.expected).toMatchObject({
      outcome: 'DIAGNOSIS',
      rootCause: { anyOf: [['TLS']] },
      mustNotClaim: [],
      scripted: { verdict: 'CONFIDENTLY_WRONG' },
    });
  });

  it('expects an abstention when a WRONG run’s real cause was not named', () => {
    const { scenario } = buildCapturedScenario(audit({ feedback: [rating({ verdict: 'WRONG' })] }), OPTIONS);
    expect(scenario.expected).toMatchObject({ outcome: 'ABSTAIN', mustNotClaim: [CONCLUSION] });
  });

  it('does not predict the replay’s verdict of a run item without a report, and says so', () => {
    const { scenario, missing } = buildCapturedScenario(
      audit({ run: run({ report: null }), feedback: [rating({ verdict: 'WRONG' })] }),
      OPTIONS,
    );
    expect((scenario.expected as Record<string, unknown>).scripted).toBeUndefined();
    expect(missing).toContain('the run item holds no report: what its replay scores is not predicted');
  });

  it.each([
    ['no feedback', audit({ feedback: [] }), 'NO_FEEDBACK'],
    ['an UNHELPFUL rating without a cause', audit({ feedback: [rating({ verdict: 'UNHELPFUL' })] }), 'NO_EXPECTATION'],
    ['a run still running', audit({ run: run({ status: 'RUNNING' }) }), 'NOT_ENDED'],
  ])('refuses a run with %s', (_label, given, code) => {
    expect(() => buildCapturedScenario(given, OPTIONS)).toThrow(CaptureError);
    expect(() => buildCapturedScenario(given, OPTIONS)).toThrow(expect.objectContaining({ code }));
  });

  it('replays the rounds as recorded: the visible text, each call’s arguments exactly as sent, the usage reported', () => {
    const { scripted } = buildCapturedScenario(audit(), OPTIONS);
    const [first, last] = (scripted as { responses: Record<string, unknown>[] }).responses;
    expect(first).toMatchObject({
      object: 'chat.completion',
      model: 'deepseek-v4-flash',
      choices: [
        {
          message: {
            role: 'assistant',
            content: '我先看错误日志。',
            reasoning_content: '先查日志',
            tool_calls: [
              { index: 0, id: 'call-1', type: 'function', function: { name: 'query_logs', arguments: ARGUMENTS } },
            ],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 1_000, completion_tokens: 50, prompt_cache_hit_tokens: 100 },
    });
    expect(last).toMatchObject({ choices: [{ message: { content: '{"conclusion":"…"}' }, finish_reason: 'stop' }] });
    expect((scripted as { description: string }).description).toMatch(/^RECORDED, not scripted/);
  });

  it('lists what the audit lacks instead of inventing it: estimated usage, a cut input, no reasoning', () => {
    const { scripted, recording, missing } = buildCapturedScenario(
      audit({
        steps: [step(1, { usageEstimated: true, finishReason: 'stop' })],
        tools: [tool({ inputTruncated: true, input: '{"input":{"service":"order-' })],
        reasoning: [],
      }),
      OPTIONS,
    );
    expect((scripted as { responses: Record<string, unknown>[] }).responses[0]?.usage).toBeUndefined();
    expect(recording.calls).toEqual([]);
    expect(missing).toEqual(
      expect.arrayContaining([
        expect.stringContaining('call call-1: its input was cut'),
        expect.stringContaining('reasoning partition is empty'),
      ]),
    );
  });
});

describe('keywordsOf', () => {
  it('keeps the identifiers of a cause, longest first, else the text itself', () => {
    expect(keywordsOf('payment-gateway 的 TLS 证书过期')).toEqual(['payment-gateway', 'TLS']);
    expect(keywordsOf('  连接池耗尽  ')).toEqual(['连接池耗尽']);
    expect(keywordsOf('长'.repeat(300))).toEqual(['长'.repeat(200)]);
  });

  it('takes no pseudonym or masking marker of a masked root cause as a keyword', () => {
    expect(keywordsOf('客户 <phone:k3f2a> 的订单失败：payment-gateway 的 password=[REDACTED:password] 被改')).toEqual([
      'payment-gateway',
      'password',
    ]);
    expect(keywordsOf('<email:abcde> 反馈 [MASKED:email]')).toEqual(['<email:abcde> 反馈 [MASKED:email]']);
  });
});
