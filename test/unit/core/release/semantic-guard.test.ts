// NOTE: over 300 lines on purpose: the SemanticGuard in its three modes and the verdict parse it relies on, over one
// scripted judge and one set of drafts.
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import {
  type DiagnosisDraft,
  type DiagnosisServiceDeps,
  executeDiagnosisRun,
  type FallbackReport,
  type JudgeLimits,
  type PublishedReport,
  parseJudgeVerdicts,
  SEMANTIC_GUARD_TITLE,
  type SemanticGuardMode,
} from '@diagnosis/core';
import { createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';
import { judgeAnswer } from '../../../support/judge-answer.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../../../support/run-fixtures.ts';
import { type ScriptStep, scriptedModel, textRound, toolRound } from '../../../support/scripted-model.ts';

const CALL = 'call-logs-1';
const REASONING = '先查 order-service 的错误日志（智能体的私有推理）。';

/** A Draft with a conclusion, its FINDING and a HYPOTHESIS, all citing the one logs check. */
function draftWithHypothesis(): DiagnosisDraft {
  const draft = supportedDraft([CALL]);
  return {
    ...draft,
    analysis: [
      ...draft.analysis,
      {
        type: 'HYPOTHESIS',
        statement: '连接池在 13:58 的发布中被调小',
        evidence_status: 'SUPPORTED',
        tool_call_ids: [CALL],
        scope: null,
      },
    ],
  };
}

/** A no-conclusion Draft with two FINDINGs. */
function twoFindingsNoConclusion(): DiagnosisDraft {
  const finding = (statement: string): DiagnosisDraft['analysis'][number] => ({
    type: 'FINDING',
    statement,
    evidence_status: 'SUPPORTED',
    tool_call_ids: [CALL],
    scope: null,
  });
  return {
    conclusion: null,
    analysis: [finding('订单服务调用 payment-gateway 失败'), finding('payment-gateway 的 CPU 持续 100%')],
    action_plan: [],
    recommendations: [],
    limitations: { checked_scope: ['order-service 日志'], missing_info: ['根因尚未确定'] },
  };
}

const verdict = (verdictName: 'SUPPORTED' | 'UNSUPPORTED' | 'UNCLEAR', reason = `${verdictName} 的理由`) => ({
  verdict: verdictName,
  reason,
});
/** The judge's answer on a `supportedDraft` (one recommendation, one step: SUPPORTED unless said). */
const judgeText = (
  analysis: ReturnType<typeof verdict>[],
  conclusion: ReturnType<typeof verdict> | null,
  advice: { recommendations?: ReturnType<typeof verdict>[]; actionPlan?: ReturnType<typeof verdict>[] } = {},
) =>
  judgeAnswer({
    analysis,
    conclusion,
    recommendations: advice.recommendations ?? [verdict('SUPPORTED')],
    action_plan: advice.actionPlan ?? [verdict('SUPPORTED')],
  });

const command = {
  runId: 'run-judge',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
  remainingMs: 60_000,
};

async function diagnose(
  draft: DiagnosisDraft,
  judgeScript: ScriptStep[],
  options: { mode?: SemanticGuardMode; limits?: Partial<JudgeLimits>; signal?: AbortSignal } = {},
) {
  const agent = scriptedModel(
    [
      toolRound([{ id: CALL, name: 'query_logs', input: envelope(LOGS_INPUT) }], { reasoning: REASONING }),
      textRound(draftAnswer(draft)),
    ],
    'agent-model',
  );
  const judge = scriptedModel(judgeScript, 'judge-model');
  const store = createMemoryStores();
  const deps: DiagnosisServiceDeps = {
    model: agent,
    evidence: createFakeEvidence().evidence,
    createStore: () => store,
    flushReserveMs: 100,
    limits: { finalRoundReserveMs: 100 },
    semanticGuard: {
      mode: options.mode ?? 'enforce',
      model: judge,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
    },
  };
  const result = await executeDiagnosisRun(
    { ...command, ...(options.signal === undefined ? {} : { signal: options.signal }) },
    deps,
  );
  const stored = await store.getRun(command.runId);
  const records = (await store.listRunRecords(command.runId)).records;
  const reasoning = (await store.listReasoning(command.runId)).records;
  return { result, stored, records, reasoning, agent, judge };
}

/** The user message text of one provider call. */
function userText(call: LanguageModelV4CallOptions | undefined): string {
  const message = call?.prompt.find((entry) => entry.role === 'user');
  if (message === undefined || message.role !== 'user') return '';
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('the SemanticGuard (enforce)', () => {
  it('publishes a Draft the judge finds fully supported, with its verdicts, usage and a JUDGE audit step', async () => {
    const draft = supportedDraft([CALL]);
    const { result, stored, records, reasoning, agent, judge } = await diagnose(draft, [
      textRound(judgeText([verdict('SUPPORTED', 'call-logs-1 显示连接池耗尽')], verdict('SUPPORTED')), {
        reasoning: '裁判的推理',
        inputTokens: 900,
        outputTokens: 80,
      }),
    ]);

    expect(result.status).toBe('PUBLISHED');
    const report = result.report as PublishedReport;
    expect(report.draft).toEqual(draft);
    expect(report.semantic_guard).toEqual({
      mode: 'enforce',
      model_id: 'judge-model',
      outcome: 'JUDGED',
      failure: null,
      conclusion: { verdict: 'SUPPORTED', reason: 'SUPPORTED 的理由' },
      analysis: [{ index: 0, verdict: 'SUPPORTED', reason: 'call-logs-1 显示连接池耗尽' }],
      recommendations: [{ index: 0, verdict: 'SUPPORTED', reason: 'SUPPORTED 的理由' }],
      action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: 'SUPPORTED 的理由' }],
      removed: [],
      removed_recommendations: [],
      removed_action_plan: [],
    });
    // The judge's call is counted in the run's usage: two agent rounds (100 + 20 tokens each) and the judge's 980.
    expect(agent.doGenerateCalls).toHaveLength(2);
    expect(judge.doGenerateCalls).toHaveLength(1);
    expect(result.usage).toMatchObject({ modelCalls: 3, totalTokens: 2 * 120 + 980 });
    expect(stored?.usage).toMatchObject({ modelCalls: 3, totalTokens: 2 * 120 + 980 });
    const steps = records.filter((record) => record.entity === 'agent_step');
    expect(steps.map((step) => [step.stepNumber, step.role, step.modelId])).toEqual([
      [1, 'AGENT', 'agent-model'],
      [2, 'AGENT', 'agent-model'],
      [3, 'JUDGE', 'judge-model'],
    ]);
    expect(reasoning.find((record) => record.stepNumber === 3)).toMatchObject({
      role: 'JUDGE',
      reasoningContent: '裁判的推理',
      assistantText: expect.stringContaining('"analysis":[["SUPPORTED",'),
    });
  });

  it('counts a judge call the provider reported no tokens for with the harness estimate, as the audit records it', async () => {
    const { result, stored, records } = await diagnose(supportedDraft([CALL]), [
      textRound(judgeText([verdict('SUPPORTED')], verdict('SUPPORTED')), { inputTokens: 0, outputTokens: 0 }),
    ]);
    expect(result.status).toBe('PUBLISHED');
    const judgeStep = records.find((record) => record.entity === 'agent_step' && record.role === 'JUDGE');
    const judged = judgeStep?.entity === 'agent_step' ? judgeStep : undefined;
    expect(judged?.usageEstimated).toBe(true);
    expect(judged?.inputTokens).toBeGreaterThan(0);
    expect(judged?.outputTokens).toBeGreaterThan(0);
    const judgeTokens = (judged?.inputTokens ?? 0) + (judged?.outputTokens ?? 0);
    expect(result.usage).toMatchObject({ modelCalls: 3, totalTokens: 2 * 120 + judgeTokens, estimatedTokenRounds: 1 });
    expect(stored?.usage).toMatchObject({ totalTokens: 2 * 120 + judgeTokens, estimatedTokenRounds: 1 });
  });

  it('asks the judge with no tools, its own instructions and only the query, the Draft and the evidence', async () => {
    const draft = supportedDraft([CALL]);
    const { agent, judge } = await diagnose(draft, [
      textRound(judgeText([verdict('SUPPORTED')], verdict('SUPPORTED'))),
    ]);

    const call = judge.doGenerateCalls[0];
    expect(call?.tools ?? []).toEqual([]);
    const system = call?.prompt.find((message) => message.role === 'system');
    expect(system?.role === 'system' && system.content.startsWith(SEMANTIC_GUARD_TITLE)).toBe(true);
    expect(call?.prompt.map((message) => message.role)).toEqual(['system', 'user']);
    const input = JSON.parse(userText(call));
    expect(Object.keys(input)).toEqual(['query', 'draft', 'evidence']);
    expect(input.query).toBe(command.query);
    // Every claim it would publish: the conclusion, the analysis, the recommendations and the action plan's steps
    // (the limitations claim nothing about the incident). Each item names its evidence by its index in the evidence,
    // never by the model's ids, and without the agent's own evidence_status claim.
    expect(input.draft).toEqual({
      conclusion: draft.conclusion,
      // A null scope is left out.
      analysis: draft.analysis.map((item) => [
        item.type,
        item.statement,
        [0],
        ...(item.scope === null ? [] : [item.scope]),
      ]),
      recommendations: draft.recommendations,
      action_plan: draft.action_plan.map((step) => [step.step, step.purpose]),
    });
    // The observation as a JSON value (not an escaped string), without the ids or the agent's protocol flag, its OK
    // status not said, log lines as a table; no `evaluation` or `truncated` beside it (issue 25); an OK observation
    // is its data.
    expect(input.evidence).toEqual([
      ['query_logs', expect.objectContaining({ columns: expect.arrayContaining(['time', 'message']) })],
    ]);
    expect(userText(call)).not.toContain(CALL);
    // The lines' messages share their start: said once, each row holding the rest.
    expect(input.evidence[0][1].message_prefix).toContain('connection pool exhausted');
    expect(input.evidence[0][1].rows.map((row: unknown[]) => row[1])).toEqual(['#0', '#1']);
    // Never the agent's conversation: none of its reasoning, and the agent's model is never asked to judge.
    expect(JSON.stringify(call?.prompt)).not.toContain(REASONING);
    for (const agentCall of agent.doGenerateCalls) {
      const agentSystem = agentCall.prompt.find((message) => message.role === 'system');
      expect(agentSystem?.role === 'system' && agentSystem.content).not.toContain(SEMANTIC_GUARD_TITLE);
    }
  });

  it('removes a finding the judge calls unsupported and lists it under limitations.missing_info', async () => {
    const draft = twoFindingsNoConclusion();
    const { result, stored } = await diagnose(draft, [
      textRound(
        judgeText([verdict('SUPPORTED'), verdict('UNSUPPORTED', '日志中没有 CPU 指标')], null, {
          recommendations: [],
          actionPlan: [],
        }),
      ),
    ]);

    expect(result.status).toBe('PUBLISHED');
    const report = result.report as PublishedReport;
    expect(report.draft.analysis.map((item) => item.statement)).toEqual(['订单服务调用 payment-gateway 失败']);
    expect(report.draft.limitations.missing_info).toEqual([
      '语义校验（证据不支持）已移除草稿分析第 2 条（FINDING）——日志中没有 CPU 指标',
      '根因尚未确定',
    ]);
    expect(report.semantic_guard).toMatchObject({ removed: [1] });
    // The removed claim is never published as text: the audit's Draft keeps it.
    expect(JSON.stringify(result.report)).not.toContain('CPU 持续 100%');
    // The run keeps the agent's full Draft for the audit; the published result holds what was released.
    expect(stored?.draft).toEqual(draft);
    expect(stored?.publishedResult?.draft.analysis).toHaveLength(1);
  });

  it('removes an unclear hypothesis but still publishes the conclusion its supported finding carries', async () => {
    const { result } = await diagnose(draftWithHypothesis(), [
      textRound(judgeText([verdict('SUPPORTED'), verdict('UNCLEAR', '证据没有变更前的数值')], verdict('SUPPORTED'))),
    ]);
    expect(result.status).toBe('PUBLISHED');
    const report = result.report as PublishedReport;
    expect(report.draft.conclusion).toBe(supportedDraft([CALL]).conclusion);
    expect(report.draft.analysis.map((item) => item.type)).toEqual(['FINDING']);
    expect(report.draft.limitations.missing_info[0]).toContain('证据不足以判断');
  });

  it.each([
    ['the conclusion itself is unsupported', [verdict('SUPPORTED'), verdict('SUPPORTED')], verdict('UNSUPPORTED')],
    ['the conclusion is unclear', [verdict('SUPPORTED'), verdict('SUPPORTED')], verdict('UNCLEAR')],
    ['a finding it rests on is unsupported', [verdict('UNSUPPORTED'), verdict('SUPPORTED')], verdict('SUPPORTED')],
  ])(
    'falls back with SEMANTIC_GUARD_REJECTED when %s, with the judge’s reasons',
    async (_label, analysis, conclusion) => {
      const { result, stored } = await diagnose(draftWithHypothesis(), [textRound(judgeText(analysis, conclusion))]);

      expect(result.status).toBe('FALLBACK');
      const report = result.report as FallbackReport;
      expect(report.reason).toContain('语义校验');
      expect(report.semantic_guard).toMatchObject({ outcome: 'JUDGED', conclusion, removed: [] });
      expect(JSON.stringify(report)).not.toContain(supportedDraft([CALL]).conclusion as string);
      expect(stored).toMatchObject({ status: 'FALLBACK', errorCode: 'SEMANTIC_GUARD_REJECTED', publishedResult: null });
    },
  );

  it.each([
    ['prose', 'Looks fine to me.'],
    ['fenced JSON', `\`\`\`json\n${judgeText([verdict('SUPPORTED')], verdict('SUPPORTED'))}\n\`\`\``],
    ['a verdict missing for an item', judgeText([], verdict('SUPPORTED'))],
    ['an unknown verdict', judgeText([{ verdict: 'PROBABLY', reason: 'x' } as never], verdict('SUPPORTED'))],
    ['a two-line reason', judgeText([verdict('SUPPORTED', '第一行\n第二行')], verdict('SUPPORTED'))],
  ])('fails closed with SEMANTIC_GUARD_FAILED when the judge returns %s', async (_label, text) => {
    const { result, stored } = await diagnose(supportedDraft([CALL]), [textRound(text)]);
    expect(result.status).toBe('FALLBACK');
    expect((result.report as FallbackReport).semantic_guard).toMatchObject({
      outcome: 'FAILED',
      failure: 'INVALID_OUTPUT',
    });
    expect(stored).toMatchObject({ errorCode: 'SEMANTIC_GUARD_FAILED', publishedResult: null });
  });

  it('fails closed when the judge does not answer within its time', async () => {
    const hanging: ScriptStep = (call) =>
      new Promise((_resolve, reject) =>
        call.abortSignal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    const { result, stored } = await diagnose(supportedDraft([CALL]), [hanging], {
      limits: { maxTimeMs: 20, minTimeMs: 1 },
    });
    expect(result.status).toBe('FALLBACK');
    expect((result.report as FallbackReport).semantic_guard).toMatchObject({ outcome: 'FAILED', failure: 'TIMEOUT' });
    expect(stored?.errorCode).toBe('SEMANTIC_GUARD_FAILED');
  });

  it('fails closed, and still counts the call, when the judge exceeds its token budget', async () => {
    const { result } = await diagnose(
      supportedDraft([CALL]),
      [
        textRound(judgeText([verdict('SUPPORTED')], verdict('SUPPORTED')), {
          inputTokens: 47_000,
          outputTokens: 2_000,
        }),
      ],
      {},
    );
    expect(result.status).toBe('FALLBACK');
    expect((result.report as FallbackReport).semantic_guard).toMatchObject({ failure: 'TOKEN_BUDGET' });
    expect(result.usage).toMatchObject({ modelCalls: 3, totalTokens: 2 * 120 + 49_000 });
  });

  it.each([
    ['its prompt cannot fit its token budget', { maxTotalTokens: 7_000 }, 'PROMPT_TOO_LARGE'],
    ['too little of the run’s time is left for it', { minTimeMs: 20_000 }, 'NO_TIME'],
  ] as const)('fails closed without calling the judge when %s', async (_label, limits, failure) => {
    const { result, judge } = await diagnose(supportedDraft([CALL]), [], { limits });
    expect(judge.doGenerateCalls).toHaveLength(0);
    expect(result.status).toBe('FALLBACK');
    expect((result.report as FallbackReport).semantic_guard).toMatchObject({ outcome: 'FAILED', failure });
  });

  it('fails closed when the judge’s provider call fails, without a retry', async () => {
    const { result, judge } = await diagnose(supportedDraft([CALL]), [new Error('503 from the judge')]);
    expect(judge.doGenerateCalls).toHaveLength(1);
    expect((result.report as FallbackReport).semantic_guard).toMatchObject({ failure: 'MODEL_FAILED' });
    expect(JSON.stringify(result.report)).not.toContain('503 from the judge');
  });
});

describe('the SemanticGuard (shadow and off)', () => {
  it('records the verdicts in shadow mode and publishes the Draft unchanged', async () => {
    const draft = draftWithHypothesis();
    const { result, stored } = await diagnose(
      draft,
      [textRound(judgeText([verdict('UNSUPPORTED'), verdict('UNSUPPORTED')], verdict('UNSUPPORTED')))],
      { mode: 'shadow' },
    );
    expect(result.status).toBe('PUBLISHED');
    const report = result.report as PublishedReport;
    expect(report.draft).toEqual(draft);
    expect(report.semantic_guard).toMatchObject({
      mode: 'shadow',
      outcome: 'JUDGED',
      conclusion: { verdict: 'UNSUPPORTED' },
      removed: [],
    });
    expect(stored?.report).toEqual(report);
    expect(result.usage.modelCalls).toBe(3);
  });

  it('records a failed judge in shadow mode and publishes all the same', async () => {
    const { result } = await diagnose(supportedDraft([CALL]), [textRound('not json')], { mode: 'shadow' });
    expect(result.status).toBe('PUBLISHED');
    expect((result.report as PublishedReport).semantic_guard).toMatchObject({ failure: 'INVALID_OUTPUT' });
  });

  it('makes no judge call when off', async () => {
    const { result, judge } = await diagnose(supportedDraft([CALL]), [], { mode: 'off' });
    expect(judge.doGenerateCalls).toHaveLength(0);
    expect(result.status).toBe('PUBLISHED');
    expect(result.report).not.toHaveProperty('semantic_guard');
    expect(result.usage.modelCalls).toBe(2);
  });

  it('does not ask the judge about a Draft the EvidenceGuard already refused', async () => {
    const { result, judge } = await diagnose(supportedDraft(['call-never-made']), []);
    expect(judge.doGenerateCalls).toHaveLength(0);
    expect(result).toMatchObject({ status: 'FALLBACK', report: { reason: expect.stringContaining('不存在') } });
  });
});

describe('parseJudgeVerdicts', () => {
  it('reads positional verdicts in the Draft’s order, each with the index of its item', () => {
    const draft = twoFindingsNoConclusion();
    const text = JSON.stringify({
      analysis: [
        ['UNCLEAR', 'b'],
        ['SUPPORTED', 'a'],
      ],
      conclusion: null,
    });
    expect(parseJudgeVerdicts(text, draft)).toMatchObject({
      ok: true,
      verdicts: {
        analysis: [
          { index: 0, verdict: 'UNCLEAR', reason: 'b' },
          { index: 1, verdict: 'SUPPORTED', reason: 'a' },
        ],
      },
    });
  });

  it.each([
    ['one verdict too few', 1],
    ['one verdict too many', 3],
  ])('refuses %s', (_label, count) => {
    const text = JSON.stringify({
      analysis: Array.from({ length: count }, () => ['SUPPORTED', 'r']),
      conclusion: null,
    });
    expect(parseJudgeVerdicts(text, twoFindingsNoConclusion())).toEqual({ ok: false });
  });

  it('refuses a conclusion verdict for a Draft without a conclusion', () => {
    const text = judgeText([verdict('SUPPORTED'), verdict('SUPPORTED')], verdict('SUPPORTED'));
    expect(parseJudgeVerdicts(text, twoFindingsNoConclusion())).toEqual({ ok: false });
  });
});
