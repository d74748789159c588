import type { AuditHook, Observation, ToolInvocationEvent } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { createObservationRecorder } from '../../../../packages/core/src/service/observation-recorder.ts';

const audit: AuditHook = { onModelStep: async () => {}, onToolInvocation: async () => {} };
const runbook = { doc_id: 'order-failures', title: '订单失败排查', snippet: '先查 payment-gateway', score: 1 };
const memory = (runId: string) => ({
  doc_id: `past-incident:${runId}`,
  title: '历史事件（2026-11-10，评为 CORRECT）——线索，不是本次的证据',
  snippet: '2026-11-10 的诊断结论：支付渠道被停用',
  score: 1,
  source: 'past_incident' as const,
  run_id: runId,
  occurred_at: '2026-11-10T01:20:00.000Z',
  rating: 'CORRECT' as const,
});
const lookup = (toolCallId: string, hits: unknown[]): Observation =>
  ({ tool_call_id: toolCallId, evidence_status: 'OK', data: { hits } }) as Observation;
const executed = (toolCallId: string, observation: Observation): ToolInvocationEvent => ({
  sessionId: 's1',
  runId: 'r1',
  stepNumber: 1,
  toolCallId,
  toolName: 'lookup_knowledge',
  disposition: 'EXECUTED',
  status: 'READY',
  empty: false,
  code: null,
  input: { input: { query: '订单失败' } },
  observation,
  result: null,
  errorDetail: null,
  startedAt: 0,
  endedAt: 1,
});

async function recorded(...events: ToolInvocationEvent[]) {
  const recorder = createObservationRecorder(audit);
  for (const event of events) await recorder.hook.onToolInvocation(event);
  return recorder;
}

describe('createObservationRecorder', () => {
  it('makes each past incident citable by its own id, apart from the lookup that returned it beside runbooks', async () => {
    const recorder = await recorded(
      executed('k1', lookup('k1', [runbook, memory('R1')])),
      executed('k2', lookup('k2', [memory('R2'), memory('R1')])),
    );
    expect(recorder.pastIncidentCitations()).toEqual({
      incidents: new Map([
        ['past-incident:R1', 'k1'],
        ['past-incident:R2', 'k2'],
      ]),
      memoryOnlyLookups: new Set(['k2']),
    });
  });

  it('shows the judge a lookup’s runbook hits for its id, and one past incident for that incident’s id', async () => {
    const recorder = await recorded(
      executed('k1', lookup('k1', [runbook, memory('R1')])),
      executed('k2', lookup('k2', [memory('R2')])),
    );
    const citable = recorder.citableObservations();
    expect(citable.get('k1')?.data).toEqual({ hits: [runbook] });
    expect(citable.get('past-incident:R1')?.data).toEqual({ hits: [memory('R1')] });
    // A lookup that returned past incidents alone has nothing else to show: it stays as the agent saw it.
    expect(citable.get('k2')?.data).toEqual({ hits: [memory('R2')] });
    expect(citable.get('past-incident:R2')?.data).toEqual({ hits: [memory('R2')] });
  });

  it('names a past incident by its checked run id, never by the doc id a source wrote', async () => {
    const recorder = await recorded(
      executed('k1', lookup('k1', [runbook, { ...memory('R1'), doc_id: 'past-incident:R7' }])),
    );
    expect([...recorder.pastIncidentCitations().incidents.keys()]).toEqual(['past-incident:R1']);
    expect(recorder.citableObservations().has('past-incident:R7')).toBe(false);
  });

  it('never lets a past incident’s id replace a check the model itself named so', async () => {
    const logs = {
      tool_call_id: 'past-incident:R1',
      evidence_status: 'OK',
      data: { lines: [] },
    } as unknown as Observation;
    const recorder = await recorded(
      { ...executed('past-incident:R1', logs), toolName: 'query_logs' },
      executed('k1', lookup('k1', [runbook, memory('R1')])),
    );
    expect(recorder.citableObservations().get('past-incident:R1')).toBe(logs);
  });
});
