import {
  DiagnosisAgentOutputError,
  DiagnosisExecutionError,
  type FailedReport,
  type FallbackReport,
  releaseDiagnosis,
  STOP_REASONS,
} from '@diagnosis/core';
import { describe, expect, it } from 'vitest';

const usage = {
  modelCalls: 1,
  inputTokens: 100,
  outputTokens: 20,
  totalTokens: 120,
  cachedInputTokens: 0,
  toolCalls: 0,
  inputBytes: 10,
  outputBytes: 0,
  estimatedTokenRounds: 0,
};
const emptyProgress = { modelCalls: 1, toolCalls: 0, rejectedToolCalls: 0, totalTokens: 120, checks: [] };
/** Words that would send the operator to someone else instead of naming the cause. */
const DEFLECTIONS = /值班|on-?call|联系/i;
/** Words that blame the question for missing context (the enterprise, time, service or symptom). */
const MISSING_CONTEXT = /缺少必要的上下文|请确认企业/;

const unauthorized = { kind: 'HTTP', httpStatus: 401, errorClass: 'APICallError', networkCode: null } as const;
const timeout = { kind: 'TIMEOUT', httpStatus: null, errorClass: 'ModelRequestTimeout', networkCode: null } as const;

describe('releaseDiagnosis — FAILED reports', () => {
  it('records the model endpoint’s status and error class in the report and the outcome when the model call failed', () => {
    const decision = releaseDiagnosis({
      error: new DiagnosisExecutionError('MODEL_FAILED', { cause: new Error('x'), modelFailure: unauthorized }),
      usage,
    });
    expect(decision.report).toEqual({
      kind: 'FAILED',
      message: expect.stringContaining('模型服务'),
      error_code: 'MODEL_FAILED',
      model_failure: { kind: 'HTTP', http_status: 401, error_class: 'APICallError', network_code: null },
    });
    expect(decision.outcome).toMatchObject({ status: 'FAILED', errorCode: 'MODEL_FAILED', modelFailure: unauthorized });
  });

  it('says the model gave no answer within DIAGNOSIS_MODEL_TIMEOUT_MS for MODEL_TIMEOUT', () => {
    const decision = releaseDiagnosis({
      error: new DiagnosisExecutionError('MODEL_TIMEOUT', { modelFailure: timeout }),
      usage,
    });
    const report = decision.report as FailedReport;
    expect(report).toMatchObject({ error_code: 'MODEL_TIMEOUT', model_failure: { kind: 'TIMEOUT' } });
    expect(report.message).toContain('DIAGNOSIS_MODEL_TIMEOUT_MS');
  });

  it('carries no model failure when the run failed for another reason', () => {
    const decision = releaseDiagnosis({ error: new DiagnosisExecutionError('AUDIT_FAILED'), usage });
    expect(decision.report).not.toHaveProperty('model_failure');
    expect(decision.outcome.modelFailure).toBeNull();
  });

  it('names each cause in its own fixed message, and never sends the operator to on-call', () => {
    const errors = [
      new DiagnosisExecutionError('MODEL_FAILED', { modelFailure: unauthorized }),
      new DiagnosisExecutionError('MODEL_TIMEOUT', { modelFailure: timeout }),
      new DiagnosisExecutionError('AUDIT_FAILED'),
      new DiagnosisExecutionError('INTERNAL'),
    ];
    const messages = errors.map((error) => (releaseDiagnosis({ error, usage }).report as FailedReport).message);

    expect(new Set(messages).size).toBe(errors.length);
    for (const message of messages) expect(message).not.toMatch(DEFLECTIONS);
    expect(messages[2]).toContain('审计');
  });
});

describe('releaseDiagnosis — FALLBACK reports', () => {
  it.each(STOP_REASONS.filter((reason) => reason !== 'CANCELLED'))(
    'names the stop reason %s and never sends the operator to on-call',
    (stopReason) => {
      const report = releaseDiagnosis({
        execution: { draft: null, progress: emptyProgress, stopReason },
        usage,
      }).report as FallbackReport;
      expect(JSON.stringify(report)).not.toMatch(DEFLECTIONS);
      expect(report.message).toContain('停止');
    },
  );

  it.each([
    ['ROUND_TOOL_CALL_LIMIT', '单轮上限'],
    ['REJECTED_CALL_LIMIT', '被拒绝的查询'],
  ] as const)('gives %s its own reason, not a budget’s', (stopReason, cause) => {
    const decision = releaseDiagnosis({ execution: { draft: null, progress: emptyProgress, stopReason }, usage });
    expect(decision.status).toBe('FALLBACK');
    expect((decision.report as FallbackReport).reason).toContain(cause);
    expect((decision.report as FallbackReport).stop_reason).toBe(stopReason);
  });

  it('reports a cancelled run as CANCELLED, not as a fallback, with its progress and no on-call', () => {
    const decision = releaseDiagnosis({
      execution: { draft: null, progress: emptyProgress, stopReason: 'CANCELLED' },
      usage,
    });
    expect(decision.status).toBe('CANCELLED');
    expect(decision.outcome).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED', progress: emptyProgress });
    expect(decision.report).toMatchObject({ kind: 'CANCELLED', stop_reason: 'CANCELLED' });
    expect(JSON.stringify(decision.report)).not.toMatch(DEFLECTIONS);
  });

  it('says the deadline stopped a run that checked nothing, instead of asking for the incident’s details', () => {
    const report = releaseDiagnosis({
      execution: { draft: null, progress: emptyProgress, stopReason: 'DEADLINE' },
      usage,
    }).report as FallbackReport;
    expect(report.reason).toContain('时间上限');
    expect(report.limitations.missing_info.join('')).not.toContain('请确认企业');
  });

  it('says the final output was invalid in the message when the run had READY checks', () => {
    const progress = {
      ...emptyProgress,
      toolCalls: 1,
      checks: [{ toolCallId: 'c1', toolName: 'query_logs', status: 'READY', empty: false, evaluation: 'PENDING' }],
    } as const;
    const invalid = releaseDiagnosis({ error: new DiagnosisAgentOutputError('DRAFT_NOT_JSON', progress), usage });
    expect(invalid.status).toBe('FALLBACK');
    expect((invalid.report as FallbackReport).message).toContain('不是有效的诊断草稿');
  });

  it('ends FAILED, not FALLBACK, when the final Draft is invalid and the run has no verified checks', () => {
    const decision = releaseDiagnosis({ error: new DiagnosisAgentOutputError('DRAFT_SCHEMA', null), usage });
    expect(decision).toMatchObject({
      status: 'FAILED',
      report: { kind: 'FAILED', error_code: 'DRAFT_SCHEMA' },
      outcome: { status: 'FAILED', errorCode: 'DRAFT_SCHEMA', progress: null, draft: null, publishedResult: null },
    });
    const text = JSON.stringify(decision.report);
    expect(text).toContain('不是有效的诊断草稿');
    expect(text).not.toMatch(MISSING_CONTEXT);
  });

  it.each(STOP_REASONS.filter((reason) => reason !== 'CANCELLED'))(
    'does not claim missing context when %s stopped a run with zero checks',
    (stopReason) => {
      const report = releaseDiagnosis({ execution: { draft: null, progress: emptyProgress, stopReason }, usage })
        .report as FallbackReport;
      expect(JSON.stringify(report)).not.toMatch(MISSING_CONTEXT);
      expect(report.limitations.missing_info.join('')).toContain('之前就已停止');
    },
  );

  it('does not claim missing context for a cancelled run with zero checks', () => {
    const decision = releaseDiagnosis({
      execution: { draft: null, progress: emptyProgress, stopReason: 'CANCELLED' },
      usage,
    });
    expect(decision.status).toBe('CANCELLED');
    expect(JSON.stringify(decision.report)).not.toMatch(MISSING_CONTEXT);
  });

  it('says context is missing only when the model’s own Draft said so', () => {
    const draft = {
      conclusion: null,
      analysis: [
        {
          type: 'FINDING' as const,
          statement: '无法判断',
          evidence_status: 'SUPPORTED' as const,
          tool_call_ids: ['c9'],
          scope: null,
        },
      ],
      action_plan: [],
      recommendations: [],
      limitations: { checked_scope: [], missing_info: ['模型自己写的缺失项 X-17'] },
    };
    const report = releaseDiagnosis({ execution: { draft, progress: emptyProgress, stopReason: null }, usage })
      .report as FallbackReport;
    expect(report.limitations.missing_info.join('')).toMatch(MISSING_CONTEXT);
    expect(JSON.stringify(report)).not.toContain('X-17');
  });
});
