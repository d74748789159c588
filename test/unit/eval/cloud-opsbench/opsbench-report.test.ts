import { describe, expect, it } from 'vitest';
import { buildOpsbenchReport, totalsOf } from '../../../../packages/eval/src/cloud-opsbench/opsbench-report.ts';
import type { OpsbenchCase } from '../../../../packages/eval/src/cloud-opsbench/run-cloud-opsbench.ts';

const lost = { parser: 0, budget: 1, window: 0, level: 2, limit: 0, cut: 0, masking: 0 };
function entry(overrides: Partial<OpsbenchCase>): OpsbenchCase {
  return {
    case: 'trainticket/runtime/1',
    system: 'trainticket',
    category: 'runtime',
    status: 'REPLAYED',
    reason: null,
    truth: { faultTaxonomy: 'Runtime_Fault', faultObject: 'app/a', rootCause: 'mysql_invalid_port' },
    import: {
      ms: 100,
      streams: 3,
      records: 10,
      kubernetesRecords: 4,
      bytes: 999,
      untimedEvents: 0,
      repeatedPrevious: 0,
    },
    replay: { calls: 3, skipped: { GetAppYAML: 1 }, repeated: 0, overBudget: 0 },
    release: { status: 'PUBLISHED', cause: null },
    evidenceRecall: {
      messages: { expert: 10, found: 7 },
      signatures: { expert: 4, found: 3 },
      lost,
      messageRecall: 0.7,
      signatureRecall: 0.75,
    },
    adapterMs: 20,
    tokens: { input: 900, cached: 600, output: 100, total: 1_000, measured: true },
    costUsd: 0.001,
    live: null,
    runId: 'eval-1',
    notes: [],
    ...overrides,
  };
}

describe('totalsOf', () => {
  const cases = [
    entry({}),
    entry({ case: 'trainticket/runtime/2', release: { status: 'FALLBACK', cause: 'TOKEN_BUDGET' }, adapterMs: 40 }),
    entry({
      case: 'boutique/startup/3',
      system: 'boutique',
      category: 'startup',
      status: 'SKIPPED',
      reason: 'LOGS_ABSENT: raw_data/logs.json is not in the dataset',
      import: null,
      replay: null,
      release: null,
      evidenceRecall: null,
      adapterMs: null,
      tokens: null,
      costUsd: 0,
      truth: null,
    }),
    entry({
      case: 'boutique/startup/1',
      system: 'boutique',
      category: 'startup',
      status: 'IMPORTED',
      reason: 'no golden trajectory: imported, not replayed',
      release: null,
      evidenceRecall: null,
      adapterMs: null,
      tokens: null,
      costUsd: 0,
    }),
  ];

  it('counts imports, skips with their reasons, releases, and sums the recall over the cases (micro)', () => {
    const totals = totalsOf(cases, 'offline');
    expect(totals).toMatchObject({
      cases: 4,
      imported: 3,
      skipped: 1,
      skip_reasons: { LOGS_ABSENT: 1 },
      not_replayed: 1,
      replayed: 2,
      published: 1,
      fallback: 1,
      fallback_causes: { TOKEN_BUDGET: 1 },
      evidence_recall: {
        messages: { expert: 20, found: 14, recall: 0.7 },
        signatures: { expert: 8, found: 6, recall: 0.75 },
        lost: { ...lost, budget: 2, level: 4 },
      },
      tokens: { total: 2_000, per_case: 1_000, input: 1_800, cached: 1_200, output: 200 },
      accuracy: null,
    });
    expect(totals.adapter_ms).toEqual({ total: 60, p50: 20, p95: 40, max: 40 });
    expect(totals.cost_usd).toBeCloseTo(0.002);
  });

  it('scores live runs as the benchmark does, over the cases that ran', () => {
    const live = (joint: boolean, component: boolean) =>
      entry({
        status: 'RAN',
        evidenceRecall: null,
        live: { predicted: { faultObject: null, rootCause: null }, component, fault: joint, joint },
      });
    const totals = totalsOf(
      [
        live(true, true),
        live(false, true),
        live(false, false),
        entry({ status: 'SKIPPED', live: null, release: null }),
      ],
      'live',
    );
    expect(totals.accuracy).toEqual({ scored: 3, component: 2 / 3, fault: 1 / 3, joint: 1 / 3 });
    expect(totals.evidence_recall).toBeNull();
  });

  it('builds the report with a group per system and category', () => {
    const report = buildOpsbenchReport({
      mode: 'offline',
      startedAt: '2031-05-06T00:00:00.000Z',
      wallMs: 5,
      concurrency: 2,
      price: { input: 0.28, cachedInput: 0.028, output: 0.42 },
      priceSource: '--price',
      filter: { systems: null, categories: null, cases: null, limit: null },
      cases,
    });
    expect(report.benchmark).toBe('cloud-opsbench');
    expect(report.groups.map((group) => [group.system, group.category, group.cases])).toEqual([
      ['trainticket', 'runtime', 2],
      ['boutique', 'startup', 2],
    ]);
    expect(report.cases[0]).toMatchObject({
      case: 'trainticket/runtime/1',
      evidence_recall: { messages: { expert: 10, found: 7, recall: 0.7 } },
      replay: { calls: 3, skipped_steps: { GetAppYAML: 1 }, repeated_steps: 0, over_budget: 0 },
      import: { kubernetes_records: 4 },
    });
  });
});
