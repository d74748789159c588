// NOTE: a little over 300 lines: the verdicts' application to every kind of claim and the report of them, over one
// set of drafts.
import { applyVerdicts, type DiagnosisDraft, type ProgressSnapshot, reviewDraftSemantics } from '@diagnosis/core';
import { describe, expect, it, vi } from 'vitest';
import { semanticGuardReport } from '../../../../packages/core/src/release/semantic-guard.ts';
import { judgeAnswer } from '../../../support/judge-answer.ts';
import { supportedDraft, testRun } from '../../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../../support/scripted-model.ts';

// The SemanticGuard's verdict application as a pure function (what enforce mode publishes, removes or rejects), and
// the cases in which reviewDraftSemantics asks no judge or fails closed before or after the call.

type Item = DiagnosisDraft['analysis'][number];
type Verdict = 'SUPPORTED' | 'UNSUPPORTED' | 'UNCLEAR';

const item = (type: Item['type'], statement: string): Item => ({
  type,
  statement,
  evidence_status: 'SUPPORTED',
  tool_call_ids: ['c1'],
  scope: null,
});
const draftOf = (conclusion: string | null, analysis: Item[], missing: string[] = []): DiagnosisDraft => ({
  ...supportedDraft(['c1']),
  conclusion,
  analysis,
  limitations: { checked_scope: ['order-service 日志'], missing_info: missing },
});
const indexed = (list: Verdict[], reason: string) =>
  list.map((verdict, index) => ({ index, verdict, reason: `${reason}${index}` }));
/** Verdicts on a Draft made by `draftOf` (one recommendation, one step: SUPPORTED unless said). */
const verdicts = (
  analysis: Verdict[],
  conclusion: Verdict | null,
  advice: { recommendations?: Verdict[]; actionPlan?: Verdict[] } = {},
) => ({
  analysis: indexed(analysis, '理由'),
  conclusion: conclusion === null ? null : { verdict: conclusion, reason: '结论理由' },
  recommendations: indexed(advice.recommendations ?? ['SUPPORTED'], '建议理由'),
  action_plan: indexed(advice.actionPlan ?? ['SUPPORTED'], '步骤理由'),
});
const nothingElse = { removedRecommendations: [], removedActionPlan: [] };

describe('applyVerdicts', () => {
  it('accepts a fully supported Draft unchanged (the same object, nothing removed)', () => {
    const draft = draftOf('结论', [item('FINDING', '发现'), item('HYPOTHESIS', '假设')]);
    const decision = applyVerdicts(draft, verdicts(['SUPPORTED', 'SUPPORTED'], 'SUPPORTED'));
    expect(decision).toEqual({ kind: 'ACCEPTED', draft, removed: [], ...nothingElse });
    expect(decision.kind === 'ACCEPTED' && decision.draft).toBe(draft);
  });

  it('rejects a supported conclusion when a supported finding it rests on is judged unsupported', () => {
    const draft = draftOf('结论', [item('FINDING', '发现一'), item('FINDING', '发现二')]);
    expect(applyVerdicts(draft, verdicts(['SUPPORTED', 'UNSUPPORTED'], 'SUPPORTED'))).toEqual({ kind: 'REJECTED' });
    expect(applyVerdicts(draft, verdicts(['UNCLEAR', 'SUPPORTED'], 'SUPPORTED'))).toEqual({ kind: 'REJECTED' });
  });

  it('rejects a Draft with a conclusion when the judge gave no conclusion verdict', () => {
    const draft = draftOf('结论', [item('FINDING', '发现')]);
    expect(applyVerdicts(draft, verdicts(['SUPPORTED'], null))).toEqual({ kind: 'REJECTED' });
  });

  it('treats an item without a verdict as unclear: removed, with an empty reason', () => {
    const draft = draftOf(null, [item('HYPOTHESIS', '连接池被调小')], ['原有限制']);
    expect(applyVerdicts(draft, { ...verdicts([], null), analysis: [] })).toEqual({
      kind: 'ACCEPTED',
      removed: [0],
      ...nothingElse,
      draft: {
        ...draft,
        analysis: [],
        limitations: {
          checked_scope: ['order-service 日志'],
          missing_info: ['语义校验（证据不足以判断）已移除草稿分析第 1 条（HYPOTHESIS）——', '原有限制'],
        },
      },
    });
  });

  it('labels an unsupported item as such, with the judge’s reason', () => {
    const draft = draftOf(null, [item('FINDING', '发现'), item('HYPOTHESIS', '假设')]);
    const decision = applyVerdicts(draft, verdicts(['SUPPORTED', 'UNSUPPORTED'], null));
    expect(decision).toEqual({
      kind: 'ACCEPTED',
      removed: [1],
      ...nothingElse,
      draft: {
        ...draft,
        analysis: [draft.analysis[0]],
        limitations: {
          checked_scope: ['order-service 日志'],
          missing_info: ['语义校验（证据不支持）已移除草稿分析第 2 条（HYPOTHESIS）——理由1'],
        },
      },
    });
  });

  it('removes an unsupported recommendation and an unclear step, each with the judge’s reason', () => {
    const draft = {
      ...draftOf('结论', [item('FINDING', '连接池耗尽')]),
      recommendations: ['为连接池 waiting 配置告警', '回滚 2.14.0 之前误删的索引'],
      action_plan: [
        { step: '恢复 db.pool.max_size', purpose: '恢复下单' },
        { step: '核对发布记录', purpose: '确认变更人' },
      ],
    };
    const decision = applyVerdicts(
      draft,
      verdicts(['SUPPORTED'], 'SUPPORTED', {
        recommendations: ['SUPPORTED', 'UNSUPPORTED'],
        actionPlan: ['UNCLEAR', 'SUPPORTED'],
      }),
    );
    expect(decision).toEqual({
      kind: 'ACCEPTED',
      removed: [],
      removedRecommendations: [1],
      removedActionPlan: [0],
      draft: {
        ...draft,
        recommendations: ['为连接池 waiting 配置告警'],
        action_plan: [{ step: '核对发布记录', purpose: '确认变更人' }],
        limitations: {
          checked_scope: ['order-service 日志'],
          missing_info: [
            '语义校验（证据不支持）已移除草稿建议第 2 条——建议理由1',
            '语义校验（证据不足以判断）已移除草稿行动步骤第 1 条——步骤理由0',
          ],
        },
      },
    });
  });

  it('keeps all ten limitation lines when removed items and existing ones make exactly ten', () => {
    const draft = draftOf(
      null,
      [item('HYPOTHESIS', '假设')],
      Array.from({ length: 9 }, (_, index) => `限制${index}`),
    );
    const decision = applyVerdicts(draft, verdicts(['UNCLEAR'], null));
    expect(decision.kind === 'ACCEPTED' && decision.draft.limitations.missing_info).toEqual([
      '语义校验（证据不足以判断）已移除草稿分析第 1 条（HYPOTHESIS）——理由0',
      ...draft.limitations.missing_info,
    ]);
  });

  it('keeps nine lines and counts the rest when there would be eleven', () => {
    const draft = draftOf(
      null,
      [item('HYPOTHESIS', '假设一'), item('HYPOTHESIS', '假设二')],
      Array.from({ length: 9 }, (_, index) => `限制${index}`),
    );
    const decision = applyVerdicts(draft, verdicts(['UNCLEAR', 'UNSUPPORTED'], null));
    const missing = decision.kind === 'ACCEPTED' ? decision.draft.limitations.missing_info : [];
    expect(missing).toHaveLength(10);
    expect(missing.slice(0, 9)).toEqual([
      '语义校验（证据不足以判断）已移除草稿分析第 1 条（HYPOTHESIS）——理由0',
      '语义校验（证据不支持）已移除草稿分析第 2 条（HYPOTHESIS）——理由1',
      ...draft.limitations.missing_info.slice(0, 7),
    ]);
    expect(missing[9]).toBe('另有 2 条限制未列出，见本次运行的审计记录（草稿与 semantic_guard）。');
  });
});

describe('applyVerdicts: a removed claim never published as text', () => {
  it('publishes no removed statement, recommendation or step, in its limitation lines or anywhere else', () => {
    const secret = (what: string) => `编造的${what}：2.13.9 回滚时删除了 idx_order_user 索引`;
    const draft = {
      ...draftOf(null, [item('FINDING', '连接池耗尽'), item('HYPOTHESIS', secret('假设'))], ['原有限制']),
      recommendations: ['为连接池 waiting 配置告警', secret('建议')],
      action_plan: [
        { step: secret('步骤'), purpose: '恢复下单' },
        { step: '核对发布记录', purpose: '确认变更人' },
      ],
    };
    const decision = applyVerdicts(
      draft,
      verdicts(['SUPPORTED', 'UNSUPPORTED'], null, {
        recommendations: ['SUPPORTED', 'UNCLEAR'],
        actionPlan: ['UNSUPPORTED', 'SUPPORTED'],
      }),
    );

    expect(decision.kind).toBe('ACCEPTED');
    const published = JSON.stringify(decision.kind === 'ACCEPTED' ? decision.draft : null);
    expect(published).not.toContain('编造的');
    expect(published).not.toContain('idx_order_user');
    expect(decision.kind === 'ACCEPTED' && decision.draft.limitations.missing_info).toEqual([
      '语义校验（证据不支持）已移除草稿分析第 2 条（HYPOTHESIS）——理由1',
      '语义校验（证据不足以判断）已移除草稿建议第 2 条——建议理由1',
      '语义校验（证据不支持）已移除草稿行动步骤第 1 条——步骤理由0',
      '原有限制',
    ]);
  });
});

describe('semanticGuardReport', () => {
  it('reports a failed review with no verdicts', () => {
    expect(semanticGuardReport({ mode: 'enforce', modelId: 'judge', outcome: 'FAILED', failure: 'NO_TIME' })).toEqual({
      mode: 'enforce',
      model_id: 'judge',
      outcome: 'FAILED',
      failure: 'NO_TIME',
      conclusion: null,
      analysis: [],
      recommendations: [],
      action_plan: [],
      removed: [],
      removed_recommendations: [],
      removed_action_plan: [],
    });
  });
});

const progress: ProgressSnapshot = {
  modelCalls: 2,
  toolCalls: 1,
  rejectedToolCalls: 0,
  totalTokens: 500,
  checks: [{ toolCallId: 'c1', toolName: 'query_logs', status: 'READY', empty: false, evaluation: null }],
};
const verified = {
  ok: true as const,
  citations: [{ tool_call_id: 'c1', tool_name: 'query_logs' as const, empty: false }],
};
const SUPPORTED_TEXT = judgeAnswer(verdicts(['SUPPORTED'], 'SUPPORTED'));

async function review(
  draft: DiagnosisDraft | null,
  evidenceGuard: typeof verified | null,
  judgeTexts: string[],
  options: { signal?: AbortSignal; maxVerdictBytes?: number } = {},
) {
  const judge = scriptedModel(
    judgeTexts.map((text) => textRound(text)),
    'judge-model',
  );
  const run = testRun(options.signal === undefined ? {} : { signal: options.signal });
  const result = await reviewDraftSemantics(
    {
      run,
      query: '订单为什么失败？',
      execution: { draft, progress, stopReason: null },
      evidenceGuard,
      observations: new Map(),
    },
    {
      mode: 'enforce',
      model: judge,
      ...(options.maxVerdictBytes === undefined ? {} : { limits: { maxVerdictBytes: options.maxVerdictBytes } }),
    },
  );
  return { result, judge };
}

describe('reviewDraftSemantics', () => {
  it('asks no judge when there is no Draft, or no EvidenceGuard result', async () => {
    const noDraft = await review(null, verified, [SUPPORTED_TEXT]);
    expect(noDraft.result).toBeNull();
    const noResult = await review(supportedDraft(['c1']), null, [SUPPORTED_TEXT]);
    expect(noResult.result).toBeNull();
    expect([noDraft.judge.doGenerateCalls, noResult.judge.doGenerateCalls]).toEqual([[], []]);
  });

  it('asks no judge about a Draft with neither conclusion, analysis nor advice', async () => {
    const { result, judge } = await review(
      { ...draftOf(null, []), recommendations: [], action_plan: [] },
      verified,
      [],
    );
    expect(result).toBeNull();
    expect(judge.doGenerateCalls).toHaveLength(0);
  });

  it('judges the advice of a Draft with neither conclusion nor analysis: advice is published, so judged', async () => {
    const text = judgeAnswer(verdicts([], null, { recommendations: ['UNSUPPORTED'] }));
    const { result, judge } = await review(draftOf(null, []), verified, [text]);
    expect(judge.doGenerateCalls).toHaveLength(1);
    expect(result).toMatchObject({ outcome: 'JUDGED', verdicts: { recommendations: [{ verdict: 'UNSUPPORTED' }] } });
  });

  it('judges a conclusion even when the handed Draft has no analysis', async () => {
    const text = judgeAnswer(verdicts([], 'UNSUPPORTED'));
    const { result } = await review(draftOf('结论', []), verified, [text]);
    expect(result).toEqual({
      mode: 'enforce',
      modelId: 'judge-model',
      outcome: 'JUDGED',
      verdicts: { ...verdicts([], 'UNSUPPORTED'), analysis: [] },
    });
  });

  it('fails closed as CANCELLED without calling the judge when the run is already cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const { result, judge } = await review(supportedDraft(['c1']), verified, [SUPPORTED_TEXT], {
      signal: controller.signal,
    });
    expect(result).toEqual({ mode: 'enforce', modelId: 'judge-model', outcome: 'FAILED', failure: 'CANCELLED' });
    expect(judge.doGenerateCalls).toHaveLength(0);
  });

  it('names a judge given by model id with that id', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const result = await reviewDraftSemantics(
      {
        run: testRun({ signal: controller.signal }),
        query: '订单为什么失败？',
        execution: { draft: supportedDraft(['c1']), progress, stopReason: null },
        evidenceGuard: verified,
        observations: new Map(),
      },
      { mode: 'shadow', model: 'deepseek-judge' },
    );
    expect(result).toEqual({ mode: 'shadow', modelId: 'deepseek-judge', outcome: 'FAILED', failure: 'CANCELLED' });
  });

  it('refuses unread verdicts larger than maxVerdictBytes as INVALID_OUTPUT, and reads them at exactly that size', async () => {
    const bytes = Buffer.byteLength(SUPPORTED_TEXT, 'utf8');
    const over = await review(supportedDraft(['c1']), verified, [SUPPORTED_TEXT], { maxVerdictBytes: bytes - 1 });
    expect(over.result).toEqual({
      mode: 'enforce',
      modelId: 'judge-model',
      outcome: 'FAILED',
      failure: 'INVALID_OUTPUT',
    });
    const exact = await review(supportedDraft(['c1']), verified, [SUPPORTED_TEXT], { maxVerdictBytes: bytes });
    expect(exact.result).toMatchObject({ outcome: 'JUDGED' });
  });

  it('clears the judge’s timer once the call is done', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { result } = await review(supportedDraft(['c1']), verified, [SUPPORTED_TEXT]);
      expect(result).toMatchObject({ outcome: 'JUDGED', modelId: 'judge-model' });
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });
});
