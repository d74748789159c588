import { buildRunEvidence, type StoredRun, type ToolInvocationEvent } from '@diagnosis/core';
import { recordOf, type StoredToolInvocation, toolItem } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { envelope, KNOWLEDGE_INPUT, supportedDraft, T0 } from '../../../support/run-fixtures.ts';
import { storedRun } from '../../../support/stored-run.ts';

const RUNBOOK = { doc_id: 'order-failures', title: '订单失败排查', snippet: '先查 payment-gateway', score: 1 };
const MEMORY = {
  doc_id: 'past-incident:R1',
  title: '历史事件（2026-11-10，评为 CORRECT）——线索，不是本次的证据',
  snippet: '2026-11-10 的诊断结论：支付渠道被停用',
  score: 1,
  source: 'past_incident',
  run_id: 'R1',
  occurred_at: '2026-11-10T01:20:00.000Z',
  rating: 'CORRECT',
};

/** The lookup k1, which returned a runbook beside the past incident R1, as the store reads it back. */
function lookupRecord(): StoredToolInvocation {
  const event: ToolInvocationEvent = {
    sessionId: 'session-1',
    runId: 'run-1',
    stepNumber: 1,
    toolCallId: 'k1',
    toolName: 'lookup_knowledge',
    disposition: 'EXECUTED',
    status: 'READY',
    empty: false,
    code: null,
    input: envelope(KNOWLEDGE_INPUT),
    observation: { tool_call_id: 'k1', evidence_status: 'OK', data: { hits: [RUNBOOK, MEMORY] } as never },
    result: null,
    errorDetail: null,
    startedAt: T0,
    endedAt: T0 + 5,
  };
  return recordOf(toolItem(event, T0, 30)) as StoredToolInvocation;
}

function runCiting(ids: string[]): StoredRun {
  const draft = supportedDraft(ids);
  const citations = ids.map((id) => ({ tool_call_id: id, tool_name: 'lookup_knowledge' as const, empty: false }));
  return storedRun({
    runId: 'run-1',
    sessionId: 'session-1',
    status: 'SUCCEEDED',
    createdAt: new Date(T0).toISOString(),
    endedAt: new Date(T0 + 1_000).toISOString(),
    draft,
    publishedResult: { draft, citations },
    progress: {
      modelCalls: 2,
      toolCalls: 1,
      rejectedToolCalls: 0,
      totalTokens: 100,
      checks: [{ toolCallId: 'k1', toolName: 'lookup_knowledge', status: 'READY', empty: false, evaluation: 'GAINED' }],
    },
  });
}

describe('buildRunEvidence with a past incident cited by its own id', () => {
  it('shows the past incident as its one hit of the lookup that returned it, marked a lead', () => {
    const [citation] = buildRunEvidence(runCiting(['past-incident:R1']), [lookupRecord()]).citations;
    expect(citation).toMatchObject({
      tool_call_id: 'past-incident:R1',
      verified: true,
      found: true,
      tool_name: 'lookup_knowledge',
      evaluation: 'GAINED',
    });
    expect(JSON.parse(citation?.observation ?? 'null').data).toEqual({ hits: [MEMORY] });
    expect(citation?.summary).toContain('1 past incident (a lead, not evidence)');
    expect(citation?.summary).not.toContain('runbook');
  });

  it('finds no record for a past incident no lookup of the run returned', () => {
    const [citation] = buildRunEvidence(runCiting(['past-incident:R9']), [lookupRecord()]).citations;
    expect(citation).toMatchObject({ tool_call_id: 'past-incident:R9', found: false, tool_name: null });
  });
});
