import { type DiagnosisDraft, type PublishedReport, releaseDiagnosis, type SemanticReview } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { supportedDraft } from '../../../support/run-fixtures.ts';

const usage = {
  modelCalls: 3,
  inputTokens: 400,
  outputTokens: 100,
  totalTokens: 500,
  cachedInputTokens: 0,
  toolCalls: 2,
  inputBytes: 50,
  outputBytes: 400,
  estimatedTokenRounds: 0,
};
/** No READY check at all: a release that checked the Draft itself would refuse every citation. */
const noChecks = { modelCalls: 3, toolCalls: 0, rejectedToolCalls: 0, totalTokens: 500, checks: [] };
const c1 = { tool_call_id: 'c1', tool_name: 'query_logs' as const, empty: false };
const c2 = { tool_call_id: 'c2', tool_name: 'lookup_knowledge' as const, empty: false };

describe('releaseDiagnosis with the EvidenceGuard’s result handed in', () => {
  it('publishes from the handed snapshot without checking the Draft again', () => {
    const draft = supportedDraft(['c1']);
    const decision = releaseDiagnosis({
      execution: { draft, progress: noChecks, stopReason: null },
      evidenceGuard: { ok: true, citations: [c1] },
      usage,
    });
    expect(decision).toMatchObject({
      report: { kind: 'DIAGNOSIS', draft, citations: [c1] },
      outcome: { status: 'SUCCEEDED', publishedResult: { draft, citations: [c1] } },
    });
  });

  it('falls back with the handed failure’s code', () => {
    const decision = releaseDiagnosis({
      execution: { draft: supportedDraft(['c1']), progress: noChecks, stopReason: null },
      evidenceGuard: { ok: false, code: 'GUARD_CONCLUSION_UNSUPPORTED', analysisIndex: null },
      usage,
    });
    expect(decision).toMatchObject({
      status: 'FALLBACK',
      outcome: { errorCode: 'GUARD_CONCLUSION_UNSUPPORTED', publishedResult: null },
    });
  });

  it('names the checks of the Draft the judge trimmed from the same snapshot', () => {
    const base = supportedDraft(['c1']);
    const draft: DiagnosisDraft = {
      ...base,
      analysis: [
        ...base.analysis,
        {
          type: 'HYPOTHESIS',
          statement: '手册称连接池通常为 50',
          evidence_status: 'SUPPORTED',
          tool_call_ids: ['c2'],
          scope: null,
        },
      ],
    };
    const semantic: SemanticReview = {
      mode: 'enforce',
      modelId: 'judge-model',
      outcome: 'JUDGED',
      verdicts: {
        analysis: [
          { index: 0, verdict: 'SUPPORTED', reason: 'c1 显示连接池耗尽' },
          { index: 1, verdict: 'UNCLEAR', reason: '手册不能证明本次的配置' },
        ],
        conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
        recommendations: draft.recommendations.map((_text, index) => ({
          index,
          verdict: 'SUPPORTED',
          reason: '依据发现',
        })),
        action_plan: draft.action_plan.map((_step, index) => ({ index, verdict: 'SUPPORTED', reason: '依据发现' })),
      },
    };
    const decision = releaseDiagnosis({
      execution: { draft, progress: noChecks, stopReason: null },
      evidenceGuard: { ok: true, citations: [c1, c2] },
      usage,
      semantic,
    });
    const report = decision.report as PublishedReport;
    expect(report.kind).toBe('DIAGNOSIS');
    expect(report.citations).toEqual([c1]);
    expect(report.draft.analysis).toEqual([base.analysis[0]]);
    expect(report.semantic_guard).toMatchObject({ removed: [1] });
  });
});
