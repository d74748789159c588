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

  it('says the Draft failed the evidence check, or the final output was invalid, in the message', () => {
    const invalid = releaseDiagnosis({ error: new DiagnosisAgentOutputError('DRAFT_NOT_JSON', null), usage });
    expect((invalid.report as FallbackReport).message).toContain('不是有效的诊断草稿');
  });
});
