import { buildRunEvidence, type PublishedReport } from '@diagnosis/core';
import type { IncidentEventRecord } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import type { RunTrace } from '../../../../packages/cli/src/render/load-run-trace.ts';
import { renderHtml } from '../../../../packages/cli/src/render/trace-html.ts';
import { supportedDraft } from '../../../support/run-fixtures.ts';
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

describe('renderHtml — the past incidents a run met', () => {
  const published = (seenBefore?: PublishedReport['seen_before']): RunTrace => {
    const report: PublishedReport = {
      kind: 'DIAGNOSIS',
      draft: supportedDraft(['call_1']),
      citations: [],
      ...(seenBefore === undefined ? {} : { seen_before: seenBefore }),
    };
    const finished = storedRun({ runId: 'run-seen-1', status: 'SUCCEEDED', report });
    return { run: finished, steps: [], tools: [], reasoning: [], evidence: buildRunEvidence(finished, []) };
  };

  it('lists each past incident in the report, marked as a lead, never evidence, every value escaped', () => {
    const html = renderHtml(
      published([
        {
          run_id: '<b>01KB3</b>',
          occurred_at: '2026-11-02T06:10:00.000Z',
          rating: 'CORRECT',
          tool_call_ids: ['call_0'],
        },
      ]),
    );
    expect(html).toContain('<h3>见过的历史事件 Seen before</h3>');
    expect(html).toContain('leads the agent was to check with this run’s logs and data, never evidence');
    expect(html).toContain(
      '<ul id="seen-before"><li>run &#60;b&#62;01KB3&#60;/b&#62; · diagnosed 2026-11-02 06:10 UTC · rated CORRECT · returned by call_0</li></ul>',
    );
    expect(html).not.toContain('<b>01KB3');
  });

  it('has no such section when the run met none', () => {
    expect(renderHtml(published())).not.toContain('Seen before');
  });
});

describe('renderHtml — the changes a run cites', () => {
  const change: NonNullable<PublishedReport['changes']>[number] = {
    change_id: 'chg_abcdefghijkl',
    at: '2026-11-30T06:01:40.000Z',
    service: 'payment-gateway',
    kind: 'deploy',
    ref: 'v3.8.0',
    summary: 'Argo CD synced <script>x</script>',
    url: "https://argocd.example.com/applications/payment-gateway?a=1&b='2'",
    placement: 'BEFORE_SYMPTOM',
    tool_call_ids: ['call_2'],
  };
  const published = (changes: PublishedReport['changes']): RunTrace => {
    const report: PublishedReport = {
      kind: 'DIAGNOSIS',
      draft: supportedDraft(['call_1']),
      citations: [],
      ...(changes === undefined ? {} : { changes }),
    };
    const finished = storedRun({ runId: 'run-change-1', status: 'SUCCEEDED', report });
    return { run: finished, steps: [], tools: [], reasoning: [], evidence: buildRunEvidence(finished, []) };
  };

  it('lists each cited change with its link and placement when the report names some, every value escaped', () => {
    const html = renderHtml(published([change]));
    expect(html).toContain('<h3>相关变更 Changes cited</h3>');
    expect(html).toContain('deploy payment-gateway v3.8.0 · landed 2026-11-30 06:01 UTC, before the symptom began');
    expect(html).toContain(
      '<a href="https://argocd.example.com/applications/payment-gateway?a=1&#38;b=&#39;2&#39;" rel="noopener noreferrer"',
    );
    expect(html).not.toContain('<script>x');
  });

  it('shows no link when the change has none or it is not http(s)', () => {
    const html = renderHtml(published([{ ...change, url: 'javascript:alert(1)' }]));
    expect(html).toContain('<ul id="changes">');
    expect(html).not.toContain('javascript:');
  });

  it('has no such section when the report names no change', () => {
    expect(renderHtml(published(undefined))).not.toContain('id="changes"');
  });
});
