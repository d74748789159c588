// NOTE: over 300 lines on purpose: the evidence behind a citation: buildRunEvidence and describeToolCall, which it
// renders with, over one set of audit fixtures.
import {
  buildRunEvidence,
  CITATION_EVIDENCE_LIMITS,
  type DiagnosisDraft,
  describeToolCall,
  type StoredRun,
  type ToolInvocationEvent,
} from '@diagnosis/core';
import { recordOf, type StoredToolInvocation, toolItem } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { envelope, KNOWLEDGE_INPUT, LOGS_INPUT, supportedDraft, T0 } from '../../../support/run-fixtures.ts';
import { storedRun } from '../../../support/stored-run.ts';

/** A tool invocation as the store reads it back: written by the real codec, then read back. */
function stored(overrides: Partial<ToolInvocationEvent> & { toolCallId: string }): StoredToolInvocation {
  return recordOf(toolItem(storedEvent(overrides.toolCallId, overrides), T0, 30)) as StoredToolInvocation;
}

function storedEvent(toolCallId: string, overrides: Partial<ToolInvocationEvent> = {}): ToolInvocationEvent {
  return {
    sessionId: 'session-1',
    runId: 'run-1',
    stepNumber: 1,
    toolName: 'query_logs',
    disposition: 'EXECUTED',
    status: 'READY',
    empty: false,
    code: null,
    input: envelope(LOGS_INPUT),
    observation: {
      tool_call_id: toolCallId,
      evidence_status: 'OK',
      data: {
        matched: 12,
        lines: [{ timestamp: '2026-11-30T14:05:01+08:00', level: 'ERROR', service: 'order-service', message: 'x' }],
      },
      requires_evaluation: true,
    },
    result: { matched: 12, lines: [], raw: 'ADAPTER-RAW-RESULT' },
    errorDetail: null,
    startedAt: T0,
    endedAt: T0 + 5,
    toolCallId,
    ...overrides,
  };
}

function run(overrides: Partial<StoredRun> = {}): StoredRun {
  return storedRun({
    runId: 'run-1',
    sessionId: 'session-1',
    status: 'SUCCEEDED',
    createdAt: new Date(T0).toISOString(),
    endedAt: new Date(T0 + 1_000).toISOString(),
    ...overrides,
  });
}

/** A Draft with three items: 0 cites call_a, 1 cites call_a and call_b, 2 (a hypothesis) cites call_b. */
function threeItemDraft(): DiagnosisDraft {
  const base = supportedDraft(['call_a']);
  const first = base.analysis[0];
  if (first === undefined) throw new Error('fixture');
  return {
    ...base,
    analysis: [
      first,
      { ...first, statement: '第二条', tool_call_ids: ['call_a', 'call_b'] },
      { ...first, type: 'HYPOTHESIS', statement: '假设', tool_call_ids: ['call_b'] },
    ],
  };
}

function publishedRun(tools: string[]) {
  const draft = threeItemDraft();
  const publishedDraft = { ...draft, analysis: draft.analysis.slice(0, 2) };
  const citations = tools.map((id) => ({ tool_call_id: id, tool_name: 'query_logs' as const, empty: false }));
  return run({
    draft,
    publishedResult: { draft: publishedDraft, citations },
    progress: {
      modelCalls: 3,
      toolCalls: 2,
      rejectedToolCalls: 0,
      totalTokens: 100,
      checks: [
        { toolCallId: 'call_a', toolName: 'query_logs', status: 'READY', empty: false, evaluation: 'GAINED' },
        { toolCallId: 'call_b', toolName: 'lookup_knowledge', status: 'READY', empty: false, evaluation: 'PENDING' },
      ],
    },
    report: {
      kind: 'DIAGNOSIS',
      draft: publishedDraft,
      citations,
      semantic_guard: {
        mode: 'enforce',
        model_id: 'judge',
        outcome: 'JUDGED',
        failure: null,
        conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
        analysis: [
          { index: 0, verdict: 'SUPPORTED', reason: 'call_a 的日志显示连接池耗尽' },
          { index: 1, verdict: 'SUPPORTED', reason: '两条都支持' },
          { index: 2, verdict: 'UNCLEAR', reason: '手册只说通常为 50' },
        ],
        removed: [2],
      },
    },
  });
}

describe('buildRunEvidence', () => {
  it('gives each verified citation its tool, canonical input, the observation the model saw, and the verdicts', () => {
    const tools = [
      stored({ toolCallId: 'call_a', input: envelope({ ...LOGS_INPUT, keyword: 'HikariPool' }) }),
      stored({
        toolCallId: 'call_b',
        toolName: 'lookup_knowledge',
        stepNumber: 2,
        input: envelope(KNOWLEDGE_INPUT, { tool_call_id: 'call_a', evaluation: 'GAINED' }),
        observation: {
          tool_call_id: 'call_b',
          evidence_status: 'OK',
          data: { hits: [{ doc_id: 'd1', title: '连接池排查手册', snippet: '通常为 50', score: 0.9 }] },
          requires_evaluation: true,
        },
        startedAt: T0 + 10,
      }),
    ];

    const evidence = buildRunEvidence(publishedRun(['call_a', 'call_b']), tools);

    expect(evidence.failure).toBeNull();
    expect(evidence.omitted).toBe(0);
    const [a, b] = evidence.citations;
    expect(a).toMatchObject({
      tool_call_id: 'call_a',
      verified: true,
      found: true,
      tool_name: 'query_logs',
      disposition: 'EXECUTED',
      status: 'READY',
      empty: false,
      code: null,
      input:
        '{"end_time":"2026-11-30T15:00:00+08:00","keyword":"HikariPool","level":"ERROR","service":"order-service","start_time":"2026-11-30T14:00:00+08:00"}',
      input_truncated: false,
      observation_truncated: false,
      summary:
        'query_logs order-service 2026-11-30 14:00–15:00 level=ERROR keyword=HikariPool → 12 matching lines, 1 shown',
      evaluation: 'GAINED',
      cited_by: [0, 1],
      verdicts: [
        { analysis_index: 0, verdict: 'SUPPORTED', reason: 'call_a 的日志显示连接池耗尽', removed: false },
        { analysis_index: 1, verdict: 'SUPPORTED', reason: '两条都支持', removed: false },
      ],
    });
    expect(JSON.parse(a?.observation ?? '')).toEqual(tools[0]?.observation);
    // The envelope's previous_observation is the protocol, not the question: it is not part of the input.
    expect(b).toMatchObject({
      tool_name: 'lookup_knowledge',
      input: '{"query":"订单失败 连接池","service":"payment-gateway"}',
      summary: 'lookup_knowledge “订单失败 连接池” service=payment-gateway → 1 runbook hit: 连接池排查手册',
      evaluation: 'PENDING',
      cited_by: [1, 2],
      verdicts: [
        { analysis_index: 1, verdict: 'SUPPORTED', removed: false },
        { analysis_index: 2, verdict: 'UNCLEAR', reason: '手册只说通常为 50', removed: true },
      ],
    });
    // Only what the model saw: never the adapter's raw result.
    expect(JSON.stringify(evidence)).not.toContain('ADAPTER-RAW-RESULT');
  });

  it('names the cause of a failed run in codes and fixed texts, never the exception or the adapter detail', () => {
    const failed = run({
      status: 'FAILED',
      errorCode: 'MODEL_FAILED',
      modelFailure: { kind: 'HTTP', httpStatus: 401, errorClass: 'APICallError', networkCode: null },
      report: {
        kind: 'FAILED',
        message: '模型服务调用失败。',
        error_code: 'MODEL_FAILED',
        model_failure: { kind: 'HTTP', http_status: 401, error_class: 'APICallError', network_code: null },
      },
    });
    const tools = [
      stored({
        toolCallId: 'call_a',
        status: 'ERROR',
        code: 'UNAVAILABLE',
        errorDetail: 'Error: connect ECONNREFUSED 10.0.0.5:3306 password=hunter2',
        observation: { tool_call_id: 'call_a', evidence_status: 'ERROR', code: 'UNAVAILABLE', message: '不可用' },
        result: null,
      }),
    ];

    const evidence = buildRunEvidence(failed, tools);

    expect(evidence.citations).toEqual([]);
    expect(evidence.failure).toEqual({
      status: 'FAILED',
      stop_reason: null,
      collection_stop_reason: null,
      error_code: 'MODEL_FAILED',
      model_failure: { kind: 'HTTP', http_status: 401, error_class: 'APICallError', network_code: null },
      message: '模型服务调用失败。',
      reason: null,
    });
    expect(JSON.stringify(evidence)).not.toMatch(/ECONNREFUSED|hunter2/);
  });

  it('shows the unpublished Draft’s own citations of a FALLBACK, marks an id the run never saw, and the stop', () => {
    const draft = supportedDraft(['call_a', 'call_00_invented']);
    const fallback = run({
      status: 'FALLBACK',
      stopReason: 'TOOL_CALL_BUDGET',
      errorCode: 'GUARD_UNKNOWN_CITATION',
      draft,
      report: { kind: 'FALLBACK', message: '诊断草稿未通过证据校验。', reason: '引用了不存在的检查。' },
    });

    const evidence = buildRunEvidence(fallback, [stored({ toolCallId: 'call_a' })]);

    expect(evidence.citations.map((citation) => [citation.tool_call_id, citation.verified, citation.found])).toEqual([
      ['call_a', false, true],
      ['call_00_invented', false, false],
    ]);
    expect(evidence.citations[1]).toMatchObject({
      tool_name: null,
      input: null,
      observation: null,
      summary: 'no tool call with this id in the run’s audit',
    });
    expect(evidence.failure).toMatchObject({
      status: 'FALLBACK',
      stop_reason: 'TOOL_CALL_BUDGET',
      error_code: 'GUARD_UNKNOWN_CITATION',
      message: '诊断草稿未通过证据校验。',
      reason: '引用了不存在的检查。',
    });
  });

  it('takes the executed call for an id whatever order its records come in, and shows a rejected call as rejected', () => {
    const reuse = stored({
      toolCallId: 'call_a',
      disposition: 'REJECTED',
      status: null,
      code: 'DUPLICATE_TOOL_CALL_ID',
      observation: { tool_call_id: 'call_a', evidence_status: 'REJECTED', code: 'DUPLICATE_TOOL_CALL_ID' },
      startedAt: T0 + 50,
    });
    const executed = stored({ toolCallId: 'call_a', startedAt: T0 + 100 });
    const draft = supportedDraft(['call_a', 'call_r']);
    const rejected = stored({
      toolCallId: 'call_r',
      disposition: 'REJECTED',
      status: null,
      code: 'INVALID_INPUT',
      input: { input: { service: 42 }, extra: 'x' },
      observation: {
        tool_call_id: 'call_r',
        evidence_status: 'REJECTED',
        code: 'INVALID_INPUT',
        message: '工具未执行',
      },
      result: null,
    });

    const evidence = buildRunEvidence(run({ status: 'FALLBACK', draft }), [reuse, rejected, executed]);

    expect(evidence.citations[0]).toMatchObject({ disposition: 'EXECUTED', status: 'READY' });
    expect(evidence.citations[1]).toMatchObject({
      disposition: 'REJECTED',
      code: 'INVALID_INPUT',
      input: '{"service":42}',
      summary: 'query_logs service=42 → REJECTED INVALID_INPUT',
    });
  });

  it('survives odd items: a missing observation, one stored cut, an input stored cut, a hostile id', () => {
    const hostileId = `call_${'x'.repeat(300)}#<b>`;
    const draft = supportedDraft(['call_none', 'call_cut', 'call_big_input', hostileId.slice(0, 200)]);
    const missing = { ...stored({ toolCallId: 'call_none' }), observation: undefined, input: undefined };
    // An observation text cut outside the codec reads back as its text, not as a parser's exception.
    const cutItem = {
      ...toolItem(storedEvent('call_cut'), T0, 30),
      observation: '{"tool_call_id":"call_cut","evidence_sta',
    };
    const cut = recordOf(cutItem) as StoredToolInvocation;
    const bigInput = stored({ toolCallId: 'call_big_input', input: envelope({ query: 'q'.repeat(40_000) }) });
    const invalidId = stored({
      toolCallId: hostileId,
      disposition: 'REJECTED',
      status: null,
      code: 'INVALID_TOOL_CALL_ID',
      observation: { tool_call_id: hostileId.slice(0, 200), evidence_status: 'REJECTED', code: 'INVALID_TOOL_CALL_ID' },
      result: null,
    });

    const evidence = buildRunEvidence(run({ status: 'FALLBACK', draft }), [
      missing as unknown as StoredToolInvocation,
      cut,
      bigInput,
      invalidId,
    ]);

    const [none, truncated, input, invalid] = evidence.citations;
    expect(none).toMatchObject({ found: true, input: null, observation: null, summary: 'query_logs → no observation' });
    expect(truncated).toMatchObject({
      observation: '{"tool_call_id":"call_cut","evidence_sta',
      observation_truncated: true,
      summary: expect.stringContaining('→ unreadable'),
    });
    // The store kept the oversized envelope as its cut JSON text; it is shown as such, within the input bound.
    expect(bigInput.inputTruncated).toBe(true);
    expect(input?.input_truncated).toBe(true);
    expect(Buffer.byteLength(input?.input ?? '')).toBeLessThanOrEqual(CITATION_EVIDENCE_LIMITS.maxInputBytes);
    // The store cut the invalid id to 200 characters; the Draft's citation of that prefix finds the rejection.
    expect(invalid).toMatchObject({ found: true, disposition: 'REJECTED', code: 'INVALID_TOOL_CALL_ID' });
    expect(invalid?.tool_call_id).toHaveLength(200);
  });

  it('bounds each observation and the whole view, and flags every cut', () => {
    const ids = Array.from({ length: 10 }, (_, index) => `call_${index}`);
    const draft = threeItemDraft();
    const analysis = ids.map((id) => ({
      ...(draft.analysis[0] as DiagnosisDraft['analysis'][number]),
      tool_call_ids: [id],
    }));
    const huge = (id: string) =>
      stored({
        toolCallId: id,
        observation: {
          tool_call_id: id,
          evidence_status: 'OK',
          data: { matched: 1, lines: [{ timestamp: 't', level: 'ERROR', service: 's', message: '日'.repeat(20_000) }] },
        },
      });

    const evidence = buildRunEvidence(run({ status: 'FALLBACK', draft: { ...draft, analysis } }), ids.map(huge));

    let total = 0;
    for (const citation of evidence.citations) {
      const bytes = Buffer.byteLength(citation.observation ?? '');
      expect(bytes).toBeLessThanOrEqual(CITATION_EVIDENCE_LIMITS.maxObservationBytes);
      expect(citation.observation_truncated).toBe(true);
      total += bytes + Buffer.byteLength(citation.input ?? '');
    }
    expect(total).toBeLessThanOrEqual(CITATION_EVIDENCE_LIMITS.maxTotalBytes);
    expect(evidence.citations.at(-1)?.observation).toBe('');
  });

  it('lists at most maxCitations and counts the rest', () => {
    const draft = threeItemDraft();
    const limits = { ...CITATION_EVIDENCE_LIMITS, maxCitations: 1 };
    const evidence = buildRunEvidence(run({ status: 'FALLBACK', draft }), [], limits);
    expect(evidence.citations.map((citation) => citation.tool_call_id)).toEqual(['call_a']);
    expect(evidence.omitted).toBe(1);
  });

  it('keeps escape sequences and bidi overrides of evidence out of what a terminal prints', () => {
    const draft = supportedDraft(['call_a']);
    const tools = [
      stored({
        toolCallId: 'call_a',
        input: envelope({ ...LOGS_INPUT, keyword: '\u001b[2J\u202eevil' }),
        observation: {
          tool_call_id: 'call_a',
          evidence_status: 'OK',
          data: {
            matched: 1,
            lines: [{ timestamp: 't', level: 'ERROR', service: 's', message: '\u009b31m\u001b]0;x' }],
          },
        },
      }),
    ];
    const [citation] = buildRunEvidence(run({ status: 'FALLBACK', draft }), tools).citations;
    const text = JSON.stringify(citation);
    for (const field of [citation?.summary, citation?.observation, citation?.input]) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the test looks for exactly these characters.
      expect(field).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    }
    expect(text).toContain('\\u001b');
  });

  it('reads a stored report of the wrong shape as no verdicts rather than failing', () => {
    const draft = supportedDraft(['call_a']);
    const odd = run({
      status: 'SUCCEEDED',
      draft,
      report: { semantic_guard: { analysis: [{ index: 'x' }, 7], removed: 'no' } },
    });
    const evidence = buildRunEvidence(odd, [stored({ toolCallId: 'call_a' })]);
    expect(evidence.citations[0]?.verdicts).toEqual([]);
  });
});

describe('describeToolCall', () => {
  it.each([
    [
      'query_mysql',
      { query_name: 'orders_by_status', params: { enterprise_id: 'E1001', since: '2026-11-30 14:00' } },
      {
        tool_call_id: 'c',
        evidence_status: 'OK',
        data: { columns: ['status', 'n'], rows: [['FAILED', 120]], truncated: true },
      },
      'query_mysql orders_by_status enterprise_id=E1001 since=2026-11-30 14:00 → 1 row (more matched) (status, n)',
    ],
    [
      'query_logs',
      LOGS_INPUT,
      { tool_call_id: 'c', evidence_status: 'EMPTY' },
      'query_logs order-service 2026-11-30 14:00–15:00 level=ERROR → no match',
    ],
    ['query_logs', { service: 's' }, { evidence_status: 'ERROR', code: 'TIMEOUT' }, 'query_logs s → ERROR TIMEOUT'],
    ['query_logs', null, { evidence_status: 'STOP_REQUIRED' }, 'query_logs → not run (STOP_REQUIRED)'],
    ['no_such_tool', { a: 1 }, 42, 'no_such_tool a=1 → unreadable'],
  ])('describes a %s call in one line', (tool, input, observation, line) => {
    expect(describeToolCall(tool, input, observation)).toBe(line);
  });

  it('stays one bounded line whatever the input holds', () => {
    const line = describeToolCall('lookup_knowledge', { query: `a\nb${'长'.repeat(1_000)}` }, null);
    expect(line).not.toContain('\n');
    expect(line.length).toBeLessThanOrEqual(240);
  });
});
