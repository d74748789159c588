import type { DiagnosisResult, FailedReport, ModelFailureReport, PublishedReport } from '@diagnosis/core';
import { emptyRunUsage } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { renderReport } from '../../../../packages/cli/src/render/render-report.ts';
import { supportedDraft } from '../../../support/run-fixtures.ts';

const context = {
  modelBaseUrl: 'https://user:pw@models.example.com:8443/v1/secret-path?key=sk-1',
  modelTimeoutMs: 90_000,
};

function failedResult(code: string, failure?: ModelFailureReport): DiagnosisResult {
  const report: FailedReport = {
    kind: 'FAILED',
    message: '模型服务调用失败。',
    error_code: code,
    ...(failure === undefined ? {} : { model_failure: failure }),
  };
  return {
    runId: 'run-1',
    status: 'FAILED',
    report,
    stopReason: null,
    progress: null,
    usage: { ...emptyRunUsage(), modelCalls: 1 },
  };
}

const http = (status: number): ModelFailureReport => ({
  kind: 'HTTP',
  http_status: status,
  error_class: 'APICallError',
  network_code: null,
});

describe('renderReport — a failed model request', () => {
  it.each([
    [http(401), 'the model endpoint answered 401 Unauthorized: check DIAGNOSIS_MODEL_API_KEY'],
    [http(429), '429 Too Many Requests: rate limited'],
    [http(500), '500 Internal Server Error: the model service failed'],
    [http(404), '404 Not Found: check DIAGNOSIS_MODEL_BASE_URL'],
    [
      { kind: 'CONNECTION', http_status: null, error_class: 'APICallError', network_code: 'ECONNREFUSED' },
      'connection refused at models.example.com:8443',
    ],
    [
      { kind: 'CONNECTION', http_status: null, error_class: 'APICallError', network_code: 'ENOTFOUND' },
      'models.example.com:8443 could not be resolved (ENOTFOUND)',
    ],
    [
      { kind: 'INVALID_RESPONSE', http_status: 200, error_class: 'JSONParseError', network_code: null },
      'answered 200 but not with an OpenAI-compatible chat completion (JSONParseError)',
    ],
    [
      { kind: 'TIMEOUT', http_status: null, error_class: 'ModelRequestTimeout', network_code: null },
      'no answer within 90 s (DIAGNOSIS_MODEL_TIMEOUT_MS)',
    ],
  ] as const)('says what to check for %o', (failure, hint) => {
    const text = renderReport(failedResult('MODEL_FAILED', failure), context);
    expect(text).toContain(hint);
    expect(text).toContain(`Model endpoint: ${failure.kind}`);
  });

  it('names the endpoint by its host only: no path, query, user info or key', () => {
    const refused = {
      kind: 'CONNECTION',
      http_status: null,
      error_class: 'APICallError',
      network_code: 'ECONNREFUSED',
    };
    const text = renderReport(failedResult('MODEL_FAILED', refused as ModelFailureReport), context);
    expect(text).not.toMatch(/secret-path|sk-1|user|pw@|\/v1/);
  });

  it('shows no model line when the run failed for another reason', () => {
    const text = renderReport(failedResult('AUDIT_FAILED'), context);
    expect(text).toContain('错误码: AUDIT_FAILED');
    expect(text).not.toContain('Model endpoint');
  });
});

describe('renderReport — stop reasons', () => {
  it('shows the collection’s stop reason beside STOP_IGNORED', () => {
    const result: DiagnosisResult = {
      ...failedResult('INTERNAL'),
      stopReason: 'STOP_IGNORED',
      collectionStopReason: 'TOOL_CALL_BUDGET',
    };
    expect(renderReport(result)).toContain('stop STOP_IGNORED (collection stopped: TOOL_CALL_BUDGET)');
  });

  it('shows the stop reason alone when collection stopped for no other reason', () => {
    const result: DiagnosisResult = { ...failedResult('INTERNAL'), stopReason: 'TOOL_CALL_BUDGET' };
    expect(renderReport(result)).toMatch(/stop TOOL_CALL_BUDGET$/m);
  });
});

describe('renderReport — estimated usage', () => {
  it('says how many rounds’ tokens are estimates when the provider reported no usage', () => {
    const base = failedResult('INTERNAL');
    const result: DiagnosisResult = { ...base, usage: { ...base.usage, totalTokens: 5_329, estimatedTokenRounds: 1 } };
    expect(renderReport(result)).toContain('tokens 5,329 (0 in / 0 out), estimated for 1 round without provider usage');
    expect(renderReport(base)).not.toContain('estimated');
  });
});

describe('renderReport — the past incidents a run met', () => {
  const published = (seenBefore?: PublishedReport['seen_before']): DiagnosisResult => ({
    runId: 'run-2',
    status: 'PUBLISHED',
    report: {
      kind: 'DIAGNOSIS',
      draft: supportedDraft(['call_1']),
      citations: [],
      ...(seenBefore === undefined ? {} : { seen_before: seenBefore }),
    },
    stopReason: null,
    progress: null,
    usage: emptyRunUsage(),
  });

  it('shows each past incident the lookups returned, marked as a lead, never evidence', () => {
    const text = renderReport(
      published([
        {
          run_id: '01KB3AAAAAAAAAAAAAAAAAAAAA',
          occurred_at: '2026-11-02T06:10:00.000Z',
          rating: 'CORRECT',
          tool_call_ids: ['call_0'],
        },
      ]),
    );
    expect(text).toContain(
      '见过的历史事件 Seen before (past incidents of this enterprise the lookups returned: leads the agent was to check with this run’s logs and data, never evidence)\n  - run 01KB3AAAAAAAAAAAAAAAAAAAAA · diagnosed 2026-11-02 06:10 UTC · rated CORRECT · returned by call_0\n',
    );
    // After the plan and before the limits: part of what the run met, apart from the findings' evidence.
    expect(text.indexOf('Seen before')).toBeGreaterThan(text.indexOf('建议 Recommendations'));
    expect(text.indexOf('Seen before')).toBeLessThan(text.indexOf('限制 Limitations'));
  });

  it('has no such section when the run met none', () => {
    expect(renderReport(published())).not.toContain('Seen before');
  });
});

describe('renderReport — the judge’s verdicts', () => {
  const judged = (modelId: string): DiagnosisResult => ({
    runId: 'run-3',
    status: 'PUBLISHED',
    report: {
      kind: 'DIAGNOSIS',
      draft: supportedDraft(['call_1']),
      citations: [],
      semantic_guard: {
        mode: 'enforce',
        model_id: modelId,
        outcome: 'JUDGED',
        conclusion: { verdict: 'SUPPORTED', reason: '由第 0 条推出' },
        analysis: [{ index: 0, verdict: 'SUPPORTED', reason: '日志显示连接池耗尽' }],
        recommendations: [],
        action_plan: [],
        failure: null,
        removed: [],
        removed_recommendations: [],
        removed_action_plan: [],
      },
    },
    stopReason: null,
    progress: null,
    usage: emptyRunUsage(),
  });

  it('marks every verdict of the scripted judge scripted, and names it so', () => {
    const text = renderReport(judged('scripted-judge'));
    expect(text).toContain(
      "语义校验 SemanticGuard (enforce, judge scripted-judge: SCRIPTED, hand-written verdicts, not a model's judgement)",
    );
    expect(text).toContain('  结论 conclusion: SUPPORTED (scripted) — 由第 0 条推出');
    expect(text).toContain('  分析 1: SUPPORTED (scripted) — 日志显示连接池耗尽');
  });

  it('marks nothing of a model’s verdicts', () => {
    const text = renderReport(judged('deepseek-v4-flash'));
    expect(text).toContain('语义校验 SemanticGuard (enforce, judge deepseek-v4-flash)\n');
    expect(text).not.toContain('scripted');
  });
});

describe('renderReport — the changes a run cites', () => {
  it('shows each cited change with its placement and its link on the next line', () => {
    const text = renderReport({
      runId: 'run-3',
      status: 'PUBLISHED',
      report: {
        kind: 'DIAGNOSIS',
        draft: supportedDraft(['call_1']),
        citations: [],
        changes: [
          {
            change_id: 'chg_abcdefghijkl',
            at: '2026-11-30T06:01:40.000Z',
            service: 'payment-gateway',
            kind: 'deploy',
            ref: 'v3.8.0',
            summary: 'Argo CD synced payment-gateway',
            url: 'https://argocd.example.com/applications/payment-gateway',
            placement: 'BEFORE_SYMPTOM',
            tool_call_ids: ['call_2'],
          },
        ],
      },
      stopReason: null,
      progress: null,
      usage: emptyRunUsage(),
    });
    expect(text).toContain(
      '相关变更 Changes cited\n  - deploy payment-gateway v3.8.0 · landed 2026-11-30 06:01 UTC, before the symptom began · Argo CD synced payment-gateway · chg_abcdefghijkl (call_2)\n    https://argocd.example.com/applications/payment-gateway\n',
    );
  });
});
