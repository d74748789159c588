import { describe, expect, it } from 'vitest';
import { describeObservation } from '../../../../packages/core/src/report/describe-tool-call.ts';

const runbook = (title: string) => ({ doc_id: `runbook:${title}`, title, snippet: '…', score: 0.8 });
const pastIncident = (title: string) => ({
  doc_id: 'past-incident:01KB3AAAAAAAAAAAAAAAAAAAAA',
  title,
  snippet: '…',
  score: 1,
  source: 'past_incident',
  run_id: '01KB3AAAAAAAAAAAAAAAAAAAAA',
  occurred_at: '2026-11-02T06:10:00.000Z',
  rating: 'CORRECT',
});
const ok = (hits: unknown[]) => ({ evidence_status: 'OK', data: { hits } });

describe('describeObservation', () => {
  it('counts runbook hits alone when a lookup returned only runbooks', () => {
    expect(describeObservation(ok([runbook('连接池排查手册'), runbook('慢查询')]))).toBe(
      '2 runbook hits: 连接池排查手册; 慢查询',
    );
  });

  it('counts past incidents apart from runbook hits, marked as leads, when a lookup returned both', () => {
    expect(
      describeObservation(ok([pastIncident('历史事件（2026-11-02，评为 CORRECT）'), runbook('连接池排查手册')])),
    ).toBe(
      '1 runbook hit, 1 past incident (a lead, not evidence): 历史事件（2026-11-02，评为 CORRECT）; 连接池排查手册',
    );
  });

  it('names no runbook hit when a lookup returned only past incidents', () => {
    expect(describeObservation(ok([pastIncident('历史事件 A'), pastIncident('历史事件 B')]))).toBe(
      '2 past incidents (leads, not evidence): 历史事件 A; 历史事件 B',
    );
  });

  it('says no match for an empty lookup and unreadable for a shape it does not know', () => {
    expect(describeObservation({ evidence_status: 'EMPTY', data: { hits: [] } })).toBe('no match');
    expect(describeObservation({ evidence_status: 'OK', data: 7 })).toBe('unreadable');
  });
});
