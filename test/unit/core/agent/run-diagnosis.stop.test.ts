import { DiagnosisAgentOutputError, DiagnosisExecutionError } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import {
  draftAnswer,
  envelope,
  KNOWLEDGE_INPUT,
  LOGS_INPUT,
  noConclusionDraft,
  supportedDraft,
} from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound, toolsOffered } from '../../../support/scripted-model.ts';

const logs = (id: string, keyword: string, previous?: { tool_call_id: string; evaluation: 'GAINED' | 'NO_GAIN' }) =>
  toolRound([{ id, name: 'query_logs', input: envelope({ ...LOGS_INPUT, keyword }, previous) }]);

function lastPromptMessages(model: Awaited<ReturnType<typeof diagnose>>['model']) {
  return model.doGenerateCalls.at(-1)?.prompt ?? [];
}

describe('runDiagnosis — Requirement: insufficient evidence terminates without a fabricated conclusion', () => {
  it('ends with no conclusion and never repeats an equivalent call when the tools find no evidence', async () => {
    const { outcome, model, adapterCalls } = await diagnose(
      [
        logs('call-1', 'timeout'),
        logs('call-2', 'timeout'), // the same query again: refused, counted as no gain
        textRound(
          JSON.stringify({
            ...noConclusionDraft(['E1001 14:00 之后的支付日志']),
            limitations: {
              checked_scope: ['order-service ERROR 日志 14:00–15:00'],
              missing_info: ['E1001 14:00 之后的支付日志'],
            },
          }),
        ),
      ],
      { handlers: { query_logs: () => ({ status: 'EMPTY' }) } },
    );
    expect(adapterCalls).toHaveLength(1);
    expect(model.doGenerateCalls.map((call) => toolsOffered(call).length)).toEqual([3, 3, 0]);
    expect(outcome.ok && outcome.result).toMatchObject({
      stopReason: 'INFORMATION_SATURATED',
      draft: { conclusion: null, limitations: { checked_scope: ['order-service ERROR 日志 14:00–15:00'] } },
    });
  });

  it('stops collection after consecutive NO_GAIN evaluations', async () => {
    const { outcome, model, adapterCalls } = await diagnose([
      logs('call-1', 'a'),
      logs('call-2', 'b', { tool_call_id: 'call-1', evaluation: 'NO_GAIN' }),
      logs('call-3', 'c', { tool_call_id: 'call-2', evaluation: 'NO_GAIN' }),
      textRound(JSON.stringify(noConclusionDraft())),
    ]);
    expect(adapterCalls.map((call) => call.toolCallId)).toEqual(['call-1', 'call-2']);
    const stopped = observationsIn(lastPromptMessages(model)).at(-1);
    expect(stopped).toMatchObject({ tool_call_id: 'call-3', evidence_status: 'STOP_REQUIRED' });
    expect(outcome.ok && outcome.result.stopReason).toBe('INFORMATION_SATURATED');
    expect(outcome.ok && outcome.result.progress.checks.map((check) => check.evaluation)).toEqual([
      'NO_GAIN',
      'NO_GAIN',
    ]);
  });

  it('resets the NO_GAIN streak on a GAINED evaluation', async () => {
    const { outcome, adapterCalls } = await diagnose([
      logs('call-1', 'a'),
      logs('call-2', 'b', { tool_call_id: 'call-1', evaluation: 'NO_GAIN' }),
      logs('call-3', 'c', { tool_call_id: 'call-2', evaluation: 'GAINED' }),
      logs('call-4', 'd', { tool_call_id: 'call-3', evaluation: 'NO_GAIN' }),
      textRound(draftAnswer(supportedDraft(['call-2']))),
    ]);
    expect(adapterCalls).toHaveLength(4);
    expect(outcome.ok && outcome.result.stopReason).toBeNull();
  });

  it('may end with zero tool calls and the missing context when no bounded query is possible', async () => {
    const missing = ['企业 ID', '故障开始时间', '受影响的服务名', '错误信息'];
    const { outcome, adapterCalls, model } = await diagnose([textRound(JSON.stringify(noConclusionDraft(missing)))], {
      query: '系统好像有点问题',
    });
    expect(adapterCalls).toHaveLength(0);
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(outcome.ok && outcome.result).toMatchObject({
      stopReason: null,
      draft: { conclusion: null, limitations: { missing_info: missing } },
      progress: { toolCalls: 0, checks: [] },
    });
  });

  it('offers no tool and sends STOP_REQUIRED in the final round, and takes the Draft, when the harness requires a stop', async () => {
    const { outcome, model } = await diagnose(
      [
        logs('call-1', 'a'),
        logs('call-2', 'b', { tool_call_id: 'call-1', evaluation: 'GAINED' }),
        textRound(draftAnswer(supportedDraft(['call-1', 'call-2']))),
      ],
      { run: { limits: { maxToolCalls: 2 } } },
    );
    const finalCall = model.doGenerateCalls[2];
    // The earlier rounds' tools stay in the request (the prompt cache's prefix); none may be called.
    expect(finalCall?.toolChoice).toEqual({ type: 'none' });
    expect(JSON.stringify(finalCall?.tools)).toBe(JSON.stringify(model.doGenerateCalls[1]?.tools));
    const notice = lastPromptMessages(model).at(-1);
    expect(notice?.role).toBe('user');
    expect(JSON.stringify(notice?.content)).toContain('STOP_REQUIRED');
    expect(outcome.ok && outcome.result).toMatchObject({ stopReason: 'TOOL_CALL_BUDGET' });
    expect(outcome.ok && outcome.result.draft?.analysis[0]?.tool_call_ids).toEqual(['call-1', 'call-2']);
  });

  it('answers STOP_REQUIRED to the calls of a round that come after the tool budget is used', async () => {
    const { model, adapterCalls, audit } = await diagnose(
      [
        toolRound([
          { id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) },
          { id: 'call-2', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) },
        ]),
        textRound(JSON.stringify(noConclusionDraft())),
      ],
      { run: { limits: { maxToolCalls: 1 } }, handlers: { query_logs: () => ({ status: 'EMPTY' }) } },
    );
    expect(adapterCalls).toHaveLength(1);
    expect(observationsIn(lastPromptMessages(model)).map((observation) => observation.evidence_status)).toEqual([
      'EMPTY',
      'STOP_REQUIRED',
    ]);
    expect(audit.tools.map((tool) => [tool.disposition, tool.code])).toEqual([
      ['EXECUTED', null],
      ['STOPPED', 'STOP_REQUIRED'],
    ]);
  });

  it('is bounded by the tool budget when the model never stops calling tools', async () => {
    const script = Array.from({ length: 8 }, (_, index) =>
      logs(
        `call-${index + 1}`,
        `k${index}`,
        index === 0 ? undefined : { tool_call_id: `call-${index}`, evaluation: 'GAINED' },
      ),
    );
    const { outcome, model, adapterCalls } = await diagnose(script);
    expect(adapterCalls).toHaveLength(6);
    expect(model.doGenerateCalls).toHaveLength(7);
    expect(toolsOffered(model.doGenerateCalls[6] ?? { prompt: [] })).toEqual([]);
    expect(outcome.ok && outcome.result).toMatchObject({ draft: null, stopReason: 'STOP_IGNORED' });
  });
});

describe('runDiagnosis — Requirement: controlled stop outcomes are preserved', () => {
  it('returns no Draft, STOP_IGNORED and the progress when the model ignores STOP_REQUIRED', async () => {
    const { outcome, adapterCalls } = await diagnose(
      [
        logs('call-1', 'a'),
        toolRound(
          [
            {
              id: 'call-2',
              name: 'lookup_knowledge',
              input: envelope(KNOWLEDGE_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
            },
          ],
          {
            text: draftAnswer(supportedDraft(['call-1'])),
          },
        ),
      ],
      { run: { limits: { maxToolCalls: 1 } } },
    );
    expect(adapterCalls).toHaveLength(1);
    expect(outcome.ok && outcome.result).toMatchObject({
      draft: null,
      stopReason: 'STOP_IGNORED',
      progress: { toolCalls: 1, checks: [{ toolCallId: 'call-1', status: 'READY' }] },
    });
  });

  it('reports the collection’s TOOL_CALL_BUDGET beside STOP_IGNORED when the final round calls a tool anyway', async () => {
    const { outcome } = await diagnose(
      [
        logs('call-1', 'a'),
        toolRound([
          {
            id: 'call-2',
            name: 'lookup_knowledge',
            input: envelope(KNOWLEDGE_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
          },
        ]),
      ],
      { run: { limits: { maxToolCalls: 1 } } },
    );
    expect(outcome.ok && outcome.result).toMatchObject({
      draft: null,
      stopReason: 'STOP_IGNORED',
      collectionStopReason: 'TOOL_CALL_BUDGET',
    });
  });

  it('names no separate collection stop reason when the stop reason already is it', async () => {
    const { outcome } = await diagnose([logs('call-1', 'a'), textRound(draftAnswer(supportedDraft(['call-1'])))], {
      run: { limits: { maxToolCalls: 1 } },
    });
    expect(outcome.ok && outcome.result).toMatchObject({ stopReason: 'TOOL_CALL_BUDGET' });
    expect(outcome.ok && outcome.result).not.toHaveProperty('collectionStopReason');
  });

  it('fails closed with INTERNAL and no progress when the framework fails for an unclassified reason', async () => {
    const broken = { content: 'not an array', finishReason: { unified: 'stop', raw: 'stop' } } as never;
    const { outcome } = await diagnose([broken]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(DiagnosisExecutionError);
    expect((outcome.error as DiagnosisExecutionError).code).toBe('INTERNAL');
    expect(outcome.error).not.toHaveProperty('progress');
  });

  it('discards an invalid final Draft and carries only the bounded progress when READY checks exist', async () => {
    const secretText = '```json\n{"conclusion": "数据库密码是 hunter2"}\n```';
    const { outcome, model } = await diagnose([logs('call-1', 'a'), textRound(secretText)]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    const error = outcome.error as DiagnosisAgentOutputError;
    expect(error).toBeInstanceOf(DiagnosisAgentOutputError);
    expect(error.code).toBe('DRAFT_NOT_JSON');
    expect(error.progress?.checks).toEqual([
      { toolCallId: 'call-1', toolName: 'query_logs', status: 'READY', empty: false, evaluation: 'PENDING' },
    ]);
    expect(JSON.stringify({ message: error.message, progress: error.progress })).not.toContain('hunter2');
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('fabricates nothing when the final Draft is invalid before any READY check exists', async () => {
    const { outcome } = await diagnose([logs('call-1', 'a'), textRound('')], {
      handlers: { query_logs: () => ({ status: 'ERROR', code: 'UNAVAILABLE' }) },
    });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toMatchObject({ code: 'DRAFT_BLANK', progress: null });
  });

  it('reports a truncated final round (finish reason length, no text) as DRAFT_BLANK', async () => {
    const { outcome } = await diagnose([textRound('', { finishReason: 'length', reasoning: 'We need' })]);
    expect(outcome.ok === false && outcome.error).toMatchObject({ code: 'DRAFT_BLANK', progress: null });
  });
});
