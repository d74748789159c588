import { buildRunEvidence } from '@diagnosis/core';
import type { IncidentEventRecord } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import type { RunTrace } from '../../../../packages/cli/src/render/load-run-trace.ts';
import { renderHtml } from '../../../../packages/cli/src/render/trace-html.ts';
import { storedRun } from '../../../support/stored-run.ts';

const HOSTILE = '<img src=x onerror=alert(1)>支付网关';
const run = storedRun({
  runId: 'run-incident-1',
  status: 'QUEUED',
  trigger: {
    source: 'alertmanager',
    incidentKey: `{}:{alertname="${HOSTILE}"}`,
    eventId: 'sha256:ab',
    title: HOSTILE,
    startedAt: '2026-11-30T06:04:00.000Z',
  },
  window: { from: '2026-11-30T05:34:00.000Z', to: '2026-11-30T06:06:35.000Z' },
});
const event = (sequence: number, kind: IncidentEventRecord['kind']): IncidentEventRecord => ({
  runId: run.runId,
  sequence,
  source: 'alertmanager',
  kind,
  eventId: `sha256:<b>${sequence}</b>`,
  title: HOSTILE,
  receivedAt: `2026-11-30T07:0${sequence}:00.000Z`,
});
const trace = (incidentEvents?: IncidentEventRecord[]): RunTrace => ({
  run,
  steps: [],
  tools: [],
  reasoning: [],
  evidence: buildRunEvidence(run, []),
  ...(incidentEvents === undefined ? {} : { incidentEvents }),
});

describe('renderHtml', () => {
  it('shows a triggered run’s incident and each later event with what it said, every sender text escaped', () => {
    const html = renderHtml(trace([event(1, 'FIRING'), event(2, 'ACKNOWLEDGED'), event(3, 'RESOLVED')]));
    expect(html).toContain('<h2>Incident</h2>');
    const rows = [...html.matchAll(/<tr><td>(\d+)<\/td><td>([^<]+)<\/td><td class="kind">([A-Z]+)<\/td>/g)];
    expect(rows.map((row) => [row[1], row[3]])).toEqual([
      ['1', 'FIRING'],
      ['2', 'ACKNOWLEDGED'],
      ['3', 'RESOLVED'],
    ]);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;支付网关');
  });

  it('says so when no later event was recorded, and has no incident section for a caller’s run', () => {
    expect(renderHtml(trace([]))).toContain('No later event of the incident was recorded on this run.');
    const callers = renderHtml({ ...trace(), run: { ...run, trigger: null, window: null } });
    expect(callers).not.toContain('<h2>Incident</h2>');
  });
});
