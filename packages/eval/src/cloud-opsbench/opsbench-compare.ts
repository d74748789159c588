/**
 * `diagnosis eval compare a.json b.json` for two Cloud-OpsBench reports (two models, or two versions of ours): case by
 * case what changed — live, the benchmark's joint score (right → wrong is a regression); offline, the release (a
 * PUBLISHED case that no longer is) and the signature lines that reached the agent — and the totals before → after:
 * accuracy or recall, published, tokens per case and cost. Pure.
 */
import * as v from 'valibot';

const recall = v.object({ expert: v.number(), found: v.number(), recall: v.nullable(v.number()) });
const totals = v.object({
  cases: v.number(),
  published: v.number(),
  evidence_recall: v.nullable(v.object({ messages: recall, signatures: recall })),
  tokens: v.object({ per_case: v.nullable(v.number()) }),
  cost_usd: v.number(),
  accuracy: v.nullable(
    v.object({ component: v.nullable(v.number()), fault: v.nullable(v.number()), joint: v.nullable(v.number()) }),
  ),
});
const reportSchema = v.object({
  benchmark: v.literal('cloud-opsbench'),
  version: v.literal(1),
  mode: v.picklist(['offline', 'live']),
  totals,
  cases: v.pipe(
    v.array(
      v.object({
        case: v.string(),
        status: v.string(),
        release: v.nullable(v.object({ status: v.string() })),
        evidence_recall: v.nullable(v.object({ signatures: recall })),
        live: v.nullable(v.object({ joint: v.boolean() })),
        tokens: v.nullable(v.object({ total: v.number() })),
      }),
    ),
    v.maxLength(10_000),
  ),
});
export type ComparableOpsbenchReport = v.InferOutput<typeof reportSchema>;
type Row = ComparableOpsbenchReport['cases'][number];

/** Whether a parsed JSON file is a Cloud-OpsBench report (the compare command chooses the comparison by it). */
export function isOpsbenchReport(value: unknown): boolean {
  return (value as { benchmark?: unknown } | null)?.benchmark === 'cloud-opsbench';
}

export function parseOpsbenchReport(
  value: unknown,
): { ok: true; report: ComparableOpsbenchReport } | { ok: false; problems: string[] } {
  const result = v.safeParse(reportSchema, value);
  if (result.success) return { ok: true, report: result.output };
  return {
    ok: false,
    problems: result.issues.slice(0, 5).map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`),
  };
}

interface OpsbenchCaseChange {
  case: string;
  before: string;
  after: string;
  regressed: boolean;
  improved: boolean;
}

export interface OpsbenchComparison {
  mode: 'offline' | 'live';
  cases: OpsbenchCaseChange[];
  regressions: number;
  improvements: number;
  /** `name: before → after` for each total that has a value on either side. */
  totals: { name: string; before: number | null; after: number | null }[];
}

/** A case's outcome in words: live its joint score, offline its release and signature lines found. */
function outcome(row: Row | undefined, mode: 'offline' | 'live'): { text: string; rank: number } {
  if (row === undefined) return { text: 'ABSENT', rank: -1 };
  if (mode === 'live') {
    if (row.live === null) return { text: row.status, rank: 0 };
    return row.live.joint ? { text: 'joint right', rank: 2 } : { text: 'joint wrong', rank: 1 };
  }
  if (row.release === null) return { text: row.status, rank: 0 };
  const signatures = row.evidence_recall?.signatures;
  const found = signatures === undefined || signatures.expert === 0 ? '' : ` ${signatures.found}/${signatures.expert}`;
  const rank = (row.release.status === 'PUBLISHED' ? 1_000 : 0) + (signatures?.found ?? 0);
  return { text: `${row.release.status}${found}`, rank };
}

export function compareOpsbenchReports(
  before: ComparableOpsbenchReport,
  after: ComparableOpsbenchReport,
): OpsbenchComparison {
  const mode = after.mode;
  const first = new Map(before.cases.map((row) => [row.case, row]));
  const second = new Map(after.cases.map((row) => [row.case, row]));
  const keys = [...new Set([...first.keys(), ...second.keys()])].sort();
  const cases = keys.map((key) => {
    const a = outcome(first.get(key), mode);
    const b = outcome(second.get(key), mode);
    const both = first.has(key) && second.has(key);
    return {
      case: key,
      before: a.text,
      after: b.text,
      regressed: both && b.rank < a.rank,
      improved: both && b.rank > a.rank,
    };
  });
  const pair = (name: string, pick: (report: ComparableOpsbenchReport) => number | null | undefined) => ({
    name,
    before: pick(before) ?? null,
    after: pick(after) ?? null,
  });
  const totalsRows = [
    pair('cases', (report) => report.totals.cases),
    pair('published', (report) => report.totals.published),
    pair('joint accuracy', (report) => report.totals.accuracy?.joint),
    pair('component accuracy', (report) => report.totals.accuracy?.component),
    pair('fault accuracy', (report) => report.totals.accuracy?.fault),
    pair('signature recall', (report) => report.totals.evidence_recall?.signatures.recall),
    pair('message recall', (report) => report.totals.evidence_recall?.messages.recall),
    pair('tokens per case', (report) => report.totals.tokens.per_case),
    pair('cost (USD)', (report) => report.totals.cost_usd),
  ].filter((row) => row.before !== null || row.after !== null);
  return {
    mode,
    cases: cases.filter((change) => change.before !== change.after),
    regressions: cases.filter((change) => change.regressed).length,
    improvements: cases.filter((change) => change.improved).length,
    totals: totalsRows,
  };
}

export function renderOpsbenchComparison(comparison: OpsbenchComparison): string {
  const lines = comparison.cases.map(
    (change) =>
      `${change.regressed ? 'REGRESSED' : change.improved ? 'improved ' : 'changed  '}  ${change.case}  ${change.before} → ${change.after}`,
  );
  const value = (name: string, number: number | null) => {
    if (number === null) return '—';
    if (/accuracy|recall/.test(name)) return `${(number * 100).toFixed(1)}%`;
    return name.startsWith('cost') ? number.toFixed(4) : Math.round(number).toLocaleString('en-US');
  };
  lines.push(
    '',
    ...comparison.totals.map((row) => `${row.name}: ${value(row.name, row.before)} → ${value(row.name, row.after)}`),
    `${comparison.regressions} regressed, ${comparison.improvements} improved`,
  );
  return `${lines.join('\n')}\n`;
}
