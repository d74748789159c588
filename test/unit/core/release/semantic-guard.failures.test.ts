import { APICallError } from '@ai-sdk/provider';
import { type AuditHook, type ProgressSnapshot, reviewDraftSemantics } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { AuditFailure } from '../../../../packages/core/src/harness/harness-signals.ts';
import { type SemanticReview, semanticGuardReport } from '../../../../packages/core/src/release/semantic-guard.ts';
import { judgeAnswer } from '../../../support/judge-answer.ts';
import { supportedDraft, testRun } from '../../../support/run-fixtures.ts';
import { type ScriptStep, scriptedModel, textRound } from '../../../support/scripted-model.ts';

const progress: ProgressSnapshot = {
  modelCalls: 2,
  toolCalls: 1,
  rejectedToolCalls: 0,
  totalTokens: 500,
  checks: [{ toolCallId: 'c1', toolName: 'query_logs', status: 'READY', empty: false, evaluation: null }],
};
const VERDICTS = judgeAnswer({
  analysis: [{ index: 0, verdict: 'SUPPORTED', reason: 'c1 显示连接池耗尽' }],
  conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
});

/** The judge's endpoint refusing its key: what a provider's 401 looks like to the SDK. */
function unauthorized(): APICallError {
  return new APICallError({
    message: 'Incorrect API key provided: sk-judge-secret',
    url: 'https://judge.example/v1/chat/completions',
    requestBodyValues: {},
    statusCode: 401,
    responseBody: '{"error":"invalid key sk-judge-secret"}',
  });
}

/** One review of a one-finding Draft by a judge playing `script`, audited by `audit` when given. */
function review(script: ScriptStep[], audit?: AuditHook) {
  return reviewDraftSemantics(
    {
      run: testRun(),
      query: 'E1001 的订单为什么失败？',
      execution: { draft: supportedDraft(['c1']), progress, stopReason: null },
      evidenceGuard: { ok: true, citations: [{ tool_call_id: 'c1', tool_name: 'query_logs', empty: false }] },
      observations: new Map(),
    },
    { mode: 'enforce', model: scriptedModel(script, 'judge-model') },
    audit,
  );
}

const auditThatRejects = (error: Error): AuditHook => ({
  onModelStep: async () => {
    throw error;
  },
  onToolInvocation: async () => undefined,
});

// NOTE: toStrictEqual, not toEqual: a review that carries `modelFailure` or `auditError` as an undefined key is a
// different object (the release copies whatever is there), and toEqual would not tell them apart.
describe('reviewDraftSemantics — judge failures', () => {
  it('says how the judge’s request failed when its provider call fails (MODEL_FAILED), and nothing of an audit', async () => {
    expect(await review([unauthorized()])).toStrictEqual({
      mode: 'enforce',
      modelId: 'judge-model',
      outcome: 'FAILED',
      failure: 'MODEL_FAILED',
      modelFailure: { kind: 'HTTP', httpStatus: 401, errorClass: 'APICallError', networkCode: null },
    });
  });

  it('keeps what the audit threw (AUDIT_FAILED) for the log line, and no model failure', async () => {
    const storeError = new Error('audit store unavailable');
    const result = await review([textRound(VERDICTS)], auditThatRejects(storeError));
    expect(result).toStrictEqual({
      mode: 'enforce',
      modelId: 'judge-model',
      outcome: 'FAILED',
      failure: 'AUDIT_FAILED',
      auditError: expect.any(AuditFailure),
    });
    expect(result?.outcome === 'FAILED' && result.auditError).toMatchObject({ cause: storeError });
  });

  it('gives neither a model failure nor an audit error for a failure of its own budget (TOKEN_BUDGET)', async () => {
    const overBudget = textRound(VERDICTS, { inputTokens: 47_000, outputTokens: 2_000 });
    expect(await review([overBudget])).toStrictEqual({
      mode: 'enforce',
      modelId: 'judge-model',
      outcome: 'FAILED',
      failure: 'TOKEN_BUDGET',
    });
  });
});

describe('semanticGuardReport', () => {
  const failed = (extra: Partial<Extract<SemanticReview, { outcome: 'FAILED' }>>): SemanticReview => ({
    mode: 'enforce',
    modelId: 'judge-model',
    outcome: 'FAILED',
    failure: 'MODEL_FAILED',
    ...extra,
  });
  const base = {
    mode: 'enforce',
    model_id: 'judge-model',
    conclusion: null,
    analysis: [],
    recommendations: [],
    action_plan: [],
    removed: [],
    removed_recommendations: [],
    removed_action_plan: [],
  };

  it('reports a failed judge request in wire names, without its message or body', () => {
    const modelFailure = { kind: 'HTTP', httpStatus: 401, errorClass: 'APICallError', networkCode: null } as const;
    expect(semanticGuardReport(failed({ modelFailure }))).toStrictEqual({
      ...base,
      outcome: 'FAILED',
      failure: 'MODEL_FAILED',
      model_failure: { kind: 'HTTP', http_status: 401, error_class: 'APICallError', network_code: null },
    });
  });

  it('reports no model failure for a failure that has none, and never the audit error', () => {
    const auditError = new AuditFailure('model step audit failed', { cause: new Error('secret-host:5432') });
    const report = semanticGuardReport(failed({ failure: 'AUDIT_FAILED', auditError }));
    expect(report).toStrictEqual({ ...base, outcome: 'FAILED', failure: 'AUDIT_FAILED' });
    expect(JSON.stringify(report)).not.toContain('secret-host');
  });

  it('reports a judged review’s verdicts with no failure', () => {
    const verdicts = {
      analysis: [{ index: 0, verdict: 'SUPPORTED' as const, reason: '理由' }],
      conclusion: { verdict: 'SUPPORTED' as const, reason: '结论理由' },
      recommendations: [{ index: 0, verdict: 'UNSUPPORTED' as const, reason: '建议理由' }],
      action_plan: [],
    };
    const judged: SemanticReview = { mode: 'shadow', modelId: 'judge-model', outcome: 'JUDGED', verdicts };
    expect(semanticGuardReport(judged)).toStrictEqual({
      mode: 'shadow',
      model_id: 'judge-model',
      outcome: 'JUDGED',
      failure: null,
      conclusion: verdicts.conclusion,
      analysis: verdicts.analysis,
      recommendations: verdicts.recommendations,
      action_plan: [],
      removed: [],
      removed_recommendations: [],
      removed_action_plan: [],
    });
  });
});
