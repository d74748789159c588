import { DiagnosisAgentOutputError, DiagnosisExecutionError } from '@diagnosis/core';
import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { draftAnswer, envelope, KNOWLEDGE_INPUT, LOGS_INPUT, supportedDraft } from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound, toolsOffered } from '../../../support/scripted-model.ts';

const ALL_TOOLS = ['lookup_knowledge', 'query_logs', 'query_mysql'];

describe('runDiagnosis — Requirement: one framework ReactAgent', () => {
  it('executes tool actions in the same loop and returns one Draft when the diagnosis needs tool evidence', async () => {
    const { outcome, model, adapterCalls, audit } = await diagnose([
      toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
      toolRound([
        {
          id: 'call-2',
          name: 'query_logs',
          input: envelope(LOGS_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
        },
      ]),
      textRound(draftAnswer(supportedDraft(['call-1', 'call-2']))),
    ]);

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.stopReason).toBeNull();
    expect(outcome.result.draft?.analysis[0]?.tool_call_ids).toEqual(['call-1', 'call-2']);
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(model.doGenerateCalls.map(toolsOffered)).toEqual([ALL_TOOLS, ALL_TOOLS, ALL_TOOLS]);
    expect(adapterCalls.map((call) => [call.toolName, call.toolCallId])).toEqual([
      ['lookup_knowledge', 'call-1'],
      ['query_logs', 'call-2'],
    ]);
    expect(audit.steps.map((step) => step.stepNumber)).toEqual([1, 2, 3]);
    expect(audit.tools.map((tool) => [tool.toolCallId, tool.stepNumber, tool.disposition])).toEqual([
      ['call-1', 1, 'EXECUTED'],
      ['call-2', 2, 'EXECUTED'],
    ]);
    expect(outcome.result.progress.checks.map((check) => check.evaluation)).toEqual(['GAINED', 'PENDING']);
  });

  it('fails closed after exactly one provider call when the agent invocation throws', async () => {
    const failure = new APICallError({
      message: 'upstream said: key sk-live-123 rejected',
      url: 'https://api.example/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 500,
      isRetryable: true,
    });
    const { outcome, model, adapterCalls } = await diagnose([failure, textRound('{}')]);

    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(DiagnosisExecutionError);
    expect((outcome.error as DiagnosisExecutionError).code).toBe('MODEL_FAILED');
    expect((outcome.error as Error).message).not.toContain('sk-live');
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(adapterCalls).toHaveLength(0);
  });

  it('fails closed without invoking the agent again when the final output is invalid', async () => {
    const { outcome, model } = await diagnose([textRound('这是我的诊断：一切正常'), textRound('{}')]);

    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(DiagnosisAgentOutputError);
    expect((outcome.error as DiagnosisAgentOutputError).code).toBe('DRAFT_NOT_JSON');
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('gives the model the tool results of the same run as bounded observations when it continues', async () => {
    const { model } = await diagnose([
      toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
      textRound(draftAnswer(supportedDraft(['call-1']))),
    ]);

    const [observation] = observationsIn(model.doGenerateCalls[1]?.prompt ?? []);
    expect(observation).toMatchObject({
      tool_call_id: 'call-1',
      evidence_status: 'OK',
      requires_evaluation: true,
      data: { hits: [{ doc_id: 'rb-001', score: 0.92 }] },
    });
    expect(Object.keys(observation ?? {}).sort()).toEqual([
      'data',
      'evidence_status',
      'ref',
      'requires_evaluation',
      'tool_call_id',
    ]);
  });
});
