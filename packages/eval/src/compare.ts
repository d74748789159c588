/**
 * `diagnosis eval compare a.json b.json`: two scorecards (`--json` reports) side by side, scenario by scenario — the
 * verdict before and after, and the process figures that changed — and which scenarios regressed: a worse verdict
 * (fewer points), a scenario that no longer scores as expected, or a captured scenario that now regresses. Pure.
 */
import * as v from 'valibot';
import { type ScenarioVerdict, VERDICTS } from './scenario.ts';
import { VERDICT_POINTS } from './score.ts';

const processFigures = v.object({
  rounds: v.number(),
  toolCalls: v.object({ refused: v.number(), redundant: v.number(), unproductive: v.number(), executed: v.number() }),
  answeredWithoutTools: v.boolean(),
  tokens: v.object({ total: v.number() }),
});
const reportSchema = v.object({
  version: v.literal(1),
  mode: v.picklist(['offline', 'live']),
  startedAt: v.string(),
  scenarios: v.pipe(
    v.array(
      v.object({
        id: v.string(),
        category: v.string(),
        status: v.string(),
        verdict: v.nullable(v.picklist(VERDICTS)),
        passed: v.boolean(),
        process: v.optional(v.nullable(processFigures)),
        captured: v.optional(v.nullable(v.object({ regressed: v.boolean() }))),
      }),
    ),
    v.maxLength(10_000),
  ),
});
export type ComparableReport = v.InferOutput<typeof reportSchema>;
type Row = ComparableReport['scenarios'][number];

/**
 * The JSON of a scorecard file. NOTE: `npm run eval -- --json > file` writes npm's own banner (`> name@version
 * eval`, `> diagnosis eval --json`, a blank line) before the JSON; those lines are skipped, and nothing else is: any
 * other text before or after the JSON is refused. Null when the text is not JSON.
 */
export function parseScorecardText(text: string): unknown {
  const lines = text.split('\n');
  let first = 0;
  while (first < lines.length && /^(> .*|\s*)$/.test(lines[first] ?? '')) first += 1;
  try {
    return JSON.parse(lines.slice(first).join('\n'));
  } catch {
    return null;
  }
}

/** A scorecard read for comparison; the fields at fault when it is not one. */
export function parseComparableReport(
  value: unknown,
): { ok: true; report: ComparableReport } | { ok: false; problems: string[] } {
  const result = v.safeParse(reportSchema, value);
  if (result.success) return { ok: true, report: result.output };
  return {
    ok: false,
    problems: result.issues.slice(0, 5).map((issue) => `${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`),
  };
}

/** A side without a verdict: the scenario ran to no verdict (skipped, error), or the scorecard has no such row. */
export const NO_VERDICT_STATES = Object.freeze(['NOT_RUN', 'ABSENT'] as const);
type NoVerdictState = (typeof NO_VERDICT_STATES)[number];

/** The process figures a comparison names when they changed (`processChanges`), in the order it lists them. */
export const PROCESS_CHANGE_FIGURES = Object.freeze([
  'rounds',
  'executed',
  'refused',
  'redundant',
  'unproductive',
  'no tools',
  'tokens',
] as const);
type ProcessChangeFigure = (typeof PROCESS_CHANGE_FIGURES)[number];

interface ScenarioComparison {
  id: string;
  category: string;
  before: ScenarioVerdict | NoVerdictState;
  after: ScenarioVerdict | NoVerdictState;
  /** Points after minus points before (null when either did not run). */
  pointsChange: number | null;
  regressed: boolean;
  improved: boolean;
  /** Process figures that changed: `redundant 0 → 2`, … */
  processChanges: string[];
}

export interface Comparison {
  scenarios: ScenarioComparison[];
  regressions: number;
  improvements: number;
  meanPointsBefore: number | null;
  meanPointsAfter: number | null;
}

export function compareReports(before: ComparableReport, after: ComparableReport): Comparison {
  const first = new Map(before.scenarios.map((row) => [row.id, row]));
  const second = new Map(after.scenarios.map((row) => [row.id, row]));
  const ids = [...new Set([...first.keys(), ...second.keys()])].sort();
  const scenarios = ids.map((id) => compareRow(id, first.get(id), second.get(id)));
  return {
    scenarios,
    regressions: scenarios.filter((row) => row.regressed).length,
    improvements: scenarios.filter((row) => row.improved).length,
    meanPointsBefore: meanPoints(before.scenarios),
    meanPointsAfter: meanPoints(after.scenarios),
  };
}

function compareRow(id: string, a: Row | undefined, b: Row | undefined): ScenarioComparison {
  const state = (row: Row | undefined) => (row === undefined ? 'ABSENT' : (row.verdict ?? 'NOT_RUN'));
  const pointsOf = (row: Row | undefined) => (row?.verdict == null ? null : VERDICT_POINTS[row.verdict]);
  const pa = pointsOf(a);
  const pb = pointsOf(b);
  const pointsChange = pa === null || pb === null ? null : pb - pa;
  const regressed =
    (pointsChange !== null && pointsChange < 0) ||
    (a?.passed === true && b !== undefined && !b.passed) ||
    (a?.captured?.regressed === false && b?.captured?.regressed === true) ||
    (a?.verdict != null && b !== undefined && b.verdict === null);
  const improved =
    !regressed && ((pointsChange !== null && pointsChange > 0) || (a?.passed === false && b?.passed === true));
  return {
    id,
    category: b?.category ?? a?.category ?? '?',
    before: state(a),
    after: state(b),
    pointsChange,
    regressed,
    improved,
    processChanges: processChanges(a?.process ?? null, b?.process ?? null),
  };
}

function processChanges(a: Row['process'] | null, b: Row['process'] | null): string[] {
  if (a == null || b == null) return [];
  const figures: [ProcessChangeFigure, number | boolean, number | boolean][] = [
    ['rounds', a.rounds, b.rounds],
    ['executed', a.toolCalls.executed, b.toolCalls.executed],
    ['refused', a.toolCalls.refused, b.toolCalls.refused],
    ['redundant', a.toolCalls.redundant, b.toolCalls.redundant],
    ['unproductive', a.toolCalls.unproductive, b.toolCalls.unproductive],
    ['no tools', a.answeredWithoutTools, b.answeredWithoutTools],
    ['tokens', a.tokens.total, b.tokens.total],
  ];
  return figures.filter(([, x, y]) => x !== y).map(([name, x, y]) => `${name} ${String(x)} → ${String(y)}`);
}

function meanPoints(rows: readonly Row[]): number | null {
  const ran = rows.filter((row) => row.verdict !== null);
  if (ran.length === 0) return null;
  return ran.reduce((sum, row) => sum + VERDICT_POINTS[row.verdict as ScenarioVerdict], 0) / ran.length;
}

/** The comparison as text: the changed scenarios first, then one line of totals. */
export function renderComparison(comparison: Comparison): string {
  const changed = comparison.scenarios.filter(
    (row) => row.regressed || row.improved || row.before !== row.after || row.processChanges.length > 0,
  );
  const lines = changed.map(
    (row) =>
      `${row.regressed ? 'REGRESSED' : row.improved ? 'improved ' : 'changed  '}  ${row.id}  ${row.before} → ${row.after}${row.processChanges.length === 0 ? '' : `  (${row.processChanges.join(', ')})`}`,
  );
  const points = (value: number | null) => (value === null ? '—' : value.toFixed(2));
  lines.push(
    '',
    `${comparison.scenarios.length} scenarios: ${comparison.regressions} regressed, ${comparison.improvements} improved; mean points ${points(comparison.meanPointsBefore)} → ${points(comparison.meanPointsAfter)}`,
  );
  return `${lines.join('\n')}\n`;
}
