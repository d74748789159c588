import { DiagnosisExecutionError, MAX_AUDIT_TEXT_CHARS } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { toModelObservation } from '../../../../packages/core/src/tools/model-observation.ts';
import { diagnose } from '../../../support/diagnose.ts';
import { createMemoryAudit } from '../../../support/memory-audit.ts';
import { draftAnswer, envelope, LOGS_INPUT, noConclusionDraft, supportedDraft } from '../../../support/run-fixtures.ts';
import { textRound, toolRound } from '../../../support/scripted-model.ts';

const logsRound = (options = {}) =>
  toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }], options);
const draftRound = (options = {}) => textRound(draftAnswer(supportedDraft(['call-1'])), options);

describe('runDiagnosis — Requirement: internal execution is auditable', () => {
  it('lets the injected hook observe model rounds and tool calls under the same sessionId and runId', async () => {
    const { audit, adapterCalls } = await diagnose([logsRound({ reasoning: '先查日志' }), draftRound()]);
    const ids = [...audit.steps, ...audit.tools, ...adapterCalls].map((event) => [event.sessionId, event.runId]);
    expect(new Set(ids.map((pair) => pair.join('/')))).toEqual(new Set(['session-1/run-1']));
    expect(audit.steps).toHaveLength(2);
    expect(audit.tools).toHaveLength(1);
  });

  it('records the provider reasoning and the tool-call plan of a round, never a tool result', async () => {
    const { audit } = await diagnose([logsRound({ reasoning: '需要查看 order-service 的错误日志' }), draftRound()]);
    const [step] = audit.steps;
    expect(step).toMatchObject({
      stepNumber: 1,
      modelId: 'scripted-model',
      finishReason: 'tool-calls',
      reasoningContent: '需要查看 order-service 的错误日志',
      reasoningAvailable: true,
      contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
      toolCalls: [{ toolCallId: 'call-1', toolName: 'query_logs' }],
      usage: { inputTokens: 100, outputTokens: 20 },
      truncated: false,
    });
    expect(step?.assistantText).toContain('query_logs');
    expect(step?.assistantText).toContain('order-service');
    expect(audit.steps[1]?.assistantText).not.toContain('connection pool exhausted');
    expect(step?.contentBytes).toBe(
      Buffer.byteLength(step?.reasoningContent ?? '') + Buffer.byteLength(step?.assistantText ?? ''),
    );
  });

  it('marks the content source from what the provider actually returned', async () => {
    const { audit } = await diagnose([textRound(JSON.stringify(noConclusionDraft()), { reasoning: '   ' })]);
    expect(audit.steps[0]).toMatchObject({
      reasoningContent: '',
      reasoningAvailable: false,
      contentSource: 'ASSISTANT_TEXT',
    });
  });

  it('falls back to the answer body’s `reasoning_content` when the SDK’s reasoning field is empty', async () => {
    const round = textRound(JSON.stringify(noConclusionDraft()));
    const body = { choices: [{ message: { content: 'x', reasoning_content: '先确认时间窗。', thinking: '另一段' } }] };
    const { audit } = await diagnose([{ ...round, response: { ...round.response, body } }]);
    expect(audit.steps[0]).toMatchObject({
      reasoningContent: '先确认时间窗。',
      reasoningAvailable: true,
      contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
    });
  });

  it('counts a blank provider key as no reasoning', async () => {
    const round = textRound(JSON.stringify(noConclusionDraft()));
    const body = { choices: [{ message: { reasoning_content: ' ', thinking: 42 } }] };
    const { audit } = await diagnose([{ ...round, response: { ...round.response, body } }]);
    expect(audit.steps[0]).toMatchObject({ reasoningContent: '', reasoningAvailable: false });
  });

  it('caps each raw text at 32,000 characters and reports the capped UTF-8 size', async () => {
    const reasoning = '推'.repeat(40_000);
    const { audit } = await diagnose([textRound(JSON.stringify(noConclusionDraft()), { reasoning })]);
    const [step] = audit.steps;
    expect(step?.reasoningContent).toHaveLength(MAX_AUDIT_TEXT_CHARS);
    expect(step?.truncated).toBe(true);
    expect(step?.contentBytes).toBe(MAX_AUDIT_TEXT_CHARS * 3 + Buffer.byteLength(step?.assistantText ?? ''));
  });

  it('records the observation the model saw on the tool invocation, the model reading its log lines as a table', async () => {
    const { audit, model } = await diagnose([logsRound(), draftRound()]);
    const sent = model.doGenerateCalls[1]?.prompt.find((message) => message.role === 'tool');
    const part = sent?.role === 'tool' ? sent.content[0] : undefined;
    const observation = audit.tools[0]?.observation;
    // NOTE: issue 25: the model's bytes are the compact form of exactly the audited (projected, masked) observation,
    // with the number the Draft cites the call by after its id.
    const { tool_call_id, ...rest } =
      observation === undefined ? { tool_call_id: '' } : toModelObservation(observation);
    expect({ tool_call_id, ref: 1, ...rest }).toEqual(
      part?.type === 'tool-result' && part.output.type === 'json' ? part.output.value : 'no json tool result',
    );
    expect(part?.type === 'tool-result' && part.output).toEqual({
      type: 'json',
      value: {
        tool_call_id: observation?.tool_call_id,
        ref: 1,
        evidence_status: 'OK',
        data: {
          matched: 2,
          service: 'order-service',
          level: 'ERROR',
          date: '2026-11-30',
          offset: '+08:00',
          message_prefix: 'call payment-gateway failed: connection pool exhausted ',
          columns: ['time', 'message', 'trace_id'],
          rows: [
            ['14:00:00', '#0', 't-0'],
            ['14:01:00', '#1', 't-1'],
          ],
        },
        requires_evaluation: true,
      },
    });
    expect(observation?.data).toMatchObject({
      lines: [
        { timestamp: '2026-11-30T14:00:00+08:00', service: 'order-service', trace_id: 't-0' },
        { timestamp: '2026-11-30T14:01:00+08:00', service: 'order-service', trace_id: 't-1' },
      ],
    });
  });

  it('fails the run closed with AUDIT_FAILED and makes no further call when the step hook rejects', async () => {
    const failing = createMemoryAudit({ failOn: 'model-step' });
    const { outcome, model, adapterCalls } = await diagnose([logsRound(), draftRound()], { audit: failing.hook });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(DiagnosisExecutionError);
    expect((outcome.error as DiagnosisExecutionError).code).toBe('AUDIT_FAILED');
    expect((outcome.error as Error).message).not.toContain('secret-host');
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(adapterCalls).toHaveLength(0);
  });

  it('fails the run closed with AUDIT_FAILED when the tool hook rejects', async () => {
    const failing = createMemoryAudit({ failOn: 'tool-invocation' });
    const { outcome, model } = await diagnose([logsRound(), draftRound()], { audit: failing.hook });
    expect(outcome.ok === false && outcome.error).toMatchObject({ code: 'AUDIT_FAILED' });
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});
