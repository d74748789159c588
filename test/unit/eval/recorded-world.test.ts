import { runDiagnosis } from '@diagnosis/core';
import { createRecordedEvidence, type RecordedWorld } from '@diagnosis/eval';
import { describe, expect, it } from 'vitest';
import { FAKE_CATALOG } from '../../support/fake-evidence.ts';
import { createMemoryAudit } from '../../support/memory-audit.ts';
import { envelope, KNOWLEDGE_INPUT, LOGS_INPUT, noConclusionDraft, testRun } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../../support/scripted-model.ts';

const LOGS_DATA = {
  matched: 2,
  lines: [{ timestamp: '2026-11-30T14:05:01+08:00', level: 'ERROR', service: 'order-service', message: 'timeout' }],
};

const recording: RecordedWorld = {
  version: 1,
  kind: 'recorded',
  description: 'test recording',
  enterpriseId: 'E1001',
  calls: [
    {
      toolName: 'query_logs',
      input: LOGS_INPUT,
      observation: { tool_call_id: 'call-1', evidence_status: 'OK', data: LOGS_DATA, requires_evaluation: true },
    },
    {
      toolName: 'lookup_knowledge',
      input: KNOWLEDGE_INPUT,
      observation: { tool_call_id: 'call-2', evidence_status: 'EMPTY' },
    },
    {
      toolName: 'query_mysql',
      input: { query_name: 'recent_failed_orders', params: { limit: 5 } },
      observation: { tool_call_id: 'call-3', evidence_status: 'ERROR', code: 'TIMEOUT' },
    },
  ],
};

const call = (toolName: 'query_logs' | 'lookup_knowledge' | 'query_mysql', input: unknown, enterpriseId = 'E1001') => ({
  runId: 'r',
  sessionId: 's',
  enterpriseId,
  toolCallId: 'c',
  toolName,
  input: input as never,
  signal: new AbortController().signal,
});

describe('createRecordedEvidence', () => {
  it('answers each recorded input as recorded, whatever the key order of the new call', async () => {
    const evidence = createRecordedEvidence(recording, FAKE_CATALOG);
    const reordered = Object.fromEntries(Object.entries(LOGS_INPUT).reverse());
    expect(await evidence.query_logs.execute(call('query_logs', reordered))).toEqual({ status: 'OK', data: LOGS_DATA });
    expect(await evidence.lookup_knowledge.execute(call('lookup_knowledge', KNOWLEDGE_INPUT))).toEqual({
      status: 'EMPTY',
    });
    const mysql = await evidence.query_mysql.execute(
      call('query_mysql', { params: { limit: 5 }, query_name: 'recent_failed_orders' }),
    );
    expect(mysql).toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });
    expect(evidence.query_mysql.catalog).toBe(FAKE_CATALOG);
    expect(evidence.asked.every((asked) => asked.recorded)).toBe(true);
  });

  it.each([
    ['another input', call('query_logs', { ...LOGS_INPUT, keyword: 'new' })],
    ['the same input to another tool', call('lookup_knowledge', LOGS_INPUT)],
    ['the same input for another tenant', call('query_logs', LOGS_INPUT, 'E2002')],
  ])('answers %s NOT_RECORDED, never with evidence', async (_label, request) => {
    const evidence = createRecordedEvidence(recording, FAKE_CATALOG);
    const adapter = evidence[request.toolName] as { execute(call: unknown): Promise<unknown> };
    expect(await adapter.execute(request)).toEqual({
      status: 'ERROR',
      code: 'NOT_RECORDED',
      detail: 'not in the recording',
    });
    expect(evidence.asked).toEqual([{ toolName: request.toolName, recorded: false }]);
  });

  it('gives the model exactly the recorded observation, and a stable NOT_RECORDED observation for a new input', async () => {
    const audit = createMemoryAudit();
    const model = scriptedModel([
      toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
      toolRound([
        {
          id: 'call-9',
          name: 'query_logs',
          input: envelope({ ...LOGS_INPUT, keyword: 'never-asked' }, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
        },
      ]),
      textRound(JSON.stringify(noConclusionDraft())),
    ]);
    await runDiagnosis(
      { run: testRun(), query: 'q' },
      { model, evidence: createRecordedEvidence(recording, FAKE_CATALOG), audit: audit.hook },
    );
    const [recorded, fresh] = audit.tools;
    expect(recorded?.observation).toEqual(recording.calls[0]?.observation);
    expect(fresh?.observation).toEqual({
      tool_call_id: 'call-9',
      evidence_status: 'ERROR',
      code: 'NOT_RECORDED',
      message: expect.stringContaining('不在录制中'),
    });
  });
});
