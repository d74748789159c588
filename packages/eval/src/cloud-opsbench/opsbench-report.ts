/**
 * The report of a Cloud-OpsBench run (`diagnosis eval cloud-opsbench … --json`, its JSON Schema
 * docs/schemas/cloud-opsbench-report.schema.json): per case and in total — for the whole run and per system and
 * category — the cases, how many imported and skipped (with reasons), replayed or run, published; offline the expert
 * evidence recall with where the rest was lost, the importer's and the logs adapter's times; live the benchmark's
 * component, fault and joint accuracy; tokens and cost. Keys are snake_case, as the issue names them. Pure.
 */
import type { Price } from '../price.ts';
import { percentile } from '../summary.ts';
import { LOSS_PLACES, type LossPlace } from './evidence-recall.ts';
import type { OpsbenchCase } from './run-cloud-opsbench.ts';

interface RecallFigure {
  expert: number;
  found: number;
  recall: number | null;
}

export interface OpsbenchTotals {
  cases: number;
  imported: number;
  skipped: number;
  skip_reasons: Record<string, number>;
  /** Imported cases that did not run offline (no golden trajectory, or no step that maps onto our tools). */
  not_replayed: number;
  replayed: number;
  ran: number;
  errors: number;
  published: number;
  fallback: number;
  failed: number;
  fallback_causes: Record<string, number>;
  evidence_recall: { messages: RecallFigure; signatures: RecallFigure; lost: Record<LossPlace, number> } | null;
  tokens: { total: number; per_case: number | null; input: number; cached: number; output: number };
  cost_usd: number;
  import_ms: TimeFigure | null;
  adapter_ms: TimeFigure | null;
  accuracy: { scored: number; component: number | null; fault: number | null; joint: number | null } | null;
}

interface TimeFigure {
  total: number;
  p50: number | null;
  p95: number | null;
  max: number | null;
}

interface OpsbenchCaseReport {
  case: string;
  system: string;
  category: string;
  status: OpsbenchCase['status'];
  reason: string | null;
  truth: { fault_taxonomy: string; fault_object: string; root_cause: string } | null;
  import: {
    ms: number;
    streams: number;
    records: number;
    kubernetes_records: number;
    bytes: number;
    untimed_events: number;
    repeated_previous: number;
  } | null;
  replay: { calls: number; skipped_steps: Record<string, number>; repeated_steps: number; over_budget: number } | null;
  release: { status: string; cause: string | null } | null;
  evidence_recall: { messages: RecallFigure; signatures: RecallFigure; lost: Record<LossPlace, number> } | null;
  adapter_ms: number | null;
  tokens: { input: number; cached: number; output: number; total: number; measured: boolean } | null;
  cost_usd: number;
  live: {
    predicted: { fault_object: string | null; root_cause: string | null };
    component: boolean;
    fault: boolean;
    joint: boolean;
  } | null;
  run_id: string | null;
  notes: string[];
}

export interface OpsbenchReport {
  benchmark: 'cloud-opsbench';
  version: 1;
  mode: 'offline' | 'live';
  started_at: string;
  wall_ms: number;
  concurrency: number;
  /** USD per million tokens, and where the figures come from (`profile deepseek`, `--price`). */
  price: { input: number; cached: number; output: number; source: string };
  filter: { systems: string[] | null; categories: string[] | null; cases: string[] | null; limit: number | null };
  totals: OpsbenchTotals;
  groups: (OpsbenchTotals & { system: string; category: string })[];
  cases: OpsbenchCaseReport[];
}

const figure = (expert: number, found: number): RecallFigure => ({
  expert,
  found,
  recall: expert === 0 ? null : found / expert,
});

function count<T extends string>(values: readonly T[]): Record<T, number> {
  const counts = {} as Record<T, number>;
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function times(values: readonly number[]): TimeFigure | null {
  if (values.length === 0) return null;
  return {
    total: values.reduce((sum, value) => sum + value, 0),
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    max: Math.max(...values),
  };
}

/** The totals of some cases (the run's, or one system and category's). */
export function totalsOf(cases: readonly OpsbenchCase[], mode: 'offline' | 'live'): OpsbenchTotals {
  const skipped = cases.filter((entry) => entry.status === 'SKIPPED');
  const released = cases.filter((entry) => entry.release !== null);
  const recalled = cases.filter((entry) => entry.evidenceRecall !== null);
  const lost = Object.fromEntries(LOSS_PLACES.map((place) => [place, 0])) as Record<LossPlace, number>;
  let messages = [0, 0];
  let signatures = [0, 0];
  for (const entry of recalled) {
    const recall = entry.evidenceRecall;
    if (recall === null) continue;
    messages = [(messages[0] ?? 0) + recall.messages.expert, (messages[1] ?? 0) + recall.messages.found];
    signatures = [(signatures[0] ?? 0) + recall.signatures.expert, (signatures[1] ?? 0) + recall.signatures.found];
    for (const place of LOSS_PLACES) lost[place] += recall.lost[place];
  }
  const withTokens = cases.filter((entry) => entry.tokens !== null);
  const sum = (pick: (entry: OpsbenchCase) => number) => withTokens.reduce((total, entry) => total + pick(entry), 0);
  const scored = cases.filter((entry) => entry.live !== null);
  const share = (pick: (entry: OpsbenchCase) => boolean) =>
    scored.length === 0 ? null : scored.filter(pick).length / scored.length;
  return {
    cases: cases.length,
    imported: cases.filter((entry) => entry.import !== null).length,
    skipped: skipped.length,
    skip_reasons: count(skipped.map((entry) => (entry.reason ?? 'UNKNOWN').split(':')[0] ?? 'UNKNOWN')),
    not_replayed: cases.filter((entry) => entry.status === 'IMPORTED').length,
    replayed: cases.filter((entry) => entry.status === 'REPLAYED').length,
    ran: cases.filter((entry) => entry.status === 'RAN').length,
    errors: cases.filter((entry) => entry.status === 'ERROR').length,
    published: released.filter((entry) => entry.release?.status === 'PUBLISHED').length,
    fallback: released.filter((entry) => entry.release?.status === 'FALLBACK').length,
    failed: released.filter((entry) => entry.release?.status === 'FAILED').length,
    fallback_causes: count(
      released
        .filter((entry) => entry.release?.status === 'FALLBACK')
        .map((entry) => entry.release?.cause ?? 'UNKNOWN'),
    ),
    evidence_recall:
      mode === 'offline' && recalled.length > 0
        ? {
            messages: figure(messages[0] ?? 0, messages[1] ?? 0),
            signatures: figure(signatures[0] ?? 0, signatures[1] ?? 0),
            lost,
          }
        : null,
    tokens: {
      total: sum((entry) => entry.tokens?.total ?? 0),
      per_case: withTokens.length === 0 ? null : sum((entry) => entry.tokens?.total ?? 0) / withTokens.length,
      input: sum((entry) => entry.tokens?.input ?? 0),
      cached: sum((entry) => entry.tokens?.cached ?? 0),
      output: sum((entry) => entry.tokens?.output ?? 0),
    },
    cost_usd: cases.reduce((total, entry) => total + entry.costUsd, 0),
    import_ms: times(cases.flatMap((entry) => (entry.import === null ? [] : [entry.import.ms]))),
    adapter_ms: times(cases.flatMap((entry) => (entry.adapterMs === null ? [] : [entry.adapterMs]))),
    accuracy:
      mode === 'live'
        ? {
            scored: scored.length,
            component: share((entry) => entry.live?.component === true),
            fault: share((entry) => entry.live?.fault === true),
            joint: share((entry) => entry.live?.joint === true),
          }
        : null,
  };
}

function caseReport(entry: OpsbenchCase): OpsbenchCaseReport {
  const recall = entry.evidenceRecall;
  return {
    case: entry.case,
    system: entry.system,
    category: entry.category,
    status: entry.status,
    reason: entry.reason,
    truth:
      entry.truth === null
        ? null
        : {
            fault_taxonomy: entry.truth.faultTaxonomy,
            fault_object: entry.truth.faultObject,
            root_cause: entry.truth.rootCause,
          },
    import:
      entry.import === null
        ? null
        : {
            ms: entry.import.ms,
            streams: entry.import.streams,
            records: entry.import.records,
            kubernetes_records: entry.import.kubernetesRecords,
            bytes: entry.import.bytes,
            untimed_events: entry.import.untimedEvents,
            repeated_previous: entry.import.repeatedPrevious,
          },
    replay:
      entry.replay === null
        ? null
        : {
            calls: entry.replay.calls,
            skipped_steps: entry.replay.skipped,
            repeated_steps: entry.replay.repeated,
            over_budget: entry.replay.overBudget,
          },
    release: entry.release,
    evidence_recall:
      recall === null
        ? null
        : {
            messages: figure(recall.messages.expert, recall.messages.found),
            signatures: figure(recall.signatures.expert, recall.signatures.found),
            lost: recall.lost,
          },
    adapter_ms: entry.adapterMs,
    tokens: entry.tokens,
    cost_usd: entry.costUsd,
    live:
      entry.live === null
        ? null
        : {
            predicted: { fault_object: entry.live.predicted.faultObject, root_cause: entry.live.predicted.rootCause },
            component: entry.live.component,
            fault: entry.live.fault,
            joint: entry.live.joint,
          },
    run_id: entry.runId,
    notes: entry.notes,
  };
}

export interface ReportInput {
  mode: 'offline' | 'live';
  startedAt: string;
  wallMs: number;
  concurrency: number;
  price: Price;
  priceSource: string;
  filter: OpsbenchReport['filter'];
  cases: readonly OpsbenchCase[];
}

/** The report of a run (see the module's note). */
export function buildOpsbenchReport(input: ReportInput): OpsbenchReport {
  const groups = new Map<string, OpsbenchCase[]>();
  for (const entry of input.cases) {
    const key = `${entry.system}/${entry.category}`;
    groups.set(key, [...(groups.get(key) ?? []), entry]);
  }
  return {
    benchmark: 'cloud-opsbench',
    version: 1,
    mode: input.mode,
    started_at: input.startedAt,
    wall_ms: input.wallMs,
    concurrency: input.concurrency,
    price: {
      input: input.price.input,
      cached: input.price.cachedInput,
      output: input.price.output,
      source: input.priceSource,
    },
    filter: input.filter,
    totals: totalsOf(input.cases, input.mode),
    groups: [...groups.entries()].map(([key, cases]) => {
      const [system = '', category = ''] = key.split('/');
      return { system, category, ...totalsOf(cases, input.mode) };
    }),
    cases: input.cases.map(caseReport),
  };
}
