/** The scorecard's summary over all scenarios of one eval run (pure; unit-tested). */
import type { ProcessScorecard } from '@diagnosis/core';
import type { ScenarioRun } from './run-scenario.ts';
import { type ScenarioVerdict, VERDICTS } from './scenario.ts';
import { VERDICT_POINTS } from './score.ts';

export interface EvalSummary {
  scenarios: number;
  ran: number;
  probesOnly: number;
  skipped: number;
  errors: number;
  verdicts: Record<ScenarioVerdict, number>;
  /** CORRECT runs over runs (null without runs). */
  accuracy: number | null;
  /** Mean points per run: CORRECT 1, INCOMPLETE 0.5, ABSTAINED and FAILED 0, CONFIDENTLY_WRONG −1. */
  meanPoints: number | null;
  confidentlyWrong: number;
  /** Of the runs that abstained, the share whose scenario expected abstaining. */
  abstentionPrecision: number | null;
  /** Of the runs of scenarios that expect abstaining, the share that abstained. */
  abstentionRecall: number | null;
  probes: { total: number; passed: number; evidenceRecall: number | null; emptyPassed: number | null };
  /** The scripted conversations' hand-written usage (offline) or the provider's (live). */
  tokensPerRun: number | null;
  /** Offline: tokens of the request bodies sent, counted with DeepSeek's tokenizer (null when none was measured). */
  measuredTokensPerRun: number | null;
  measuredInputTokensPerRun: number | null;
  costPerRunUsd: number | null;
  costTotalUsd: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  /** Scenarios whose verdict is the one expected and whose probes all pass. */
  asExpected: number;
  allAsExpected: boolean;
  /** The process scorecards of the runs, averaged (null without any). */
  process: ProcessSummary | null;
  /** Per category: runs, correct ones, mean points and the process figures. */
  byCategory: Record<string, CategorySummary>;
  /** Captured scenarios (real runs with a responder's verdict) and how many of their replays regressed. */
  captured: { scenarios: number; regressed: number };
  /**
   * Past incidents (docs/memory.md): the past runs the lookups returned (`hits`, summed over runs), the items the
   * EvidenceGuard removed for resting on them alone (`removed`), and per scenario with a `baseline` that also ran,
   * the agent rounds of each and how many the memory saved.
   */
  pastIncidents: {
    hits: number;
    removed: number;
    roundsSaved: { scenario: string; baseline: string; rounds: number; baselineRounds: number; saved: number }[];
  };
}

/** Means over runs with a stored process scorecard (docs/learning-from-runs.md defines each figure). */
export interface ProcessSummary {
  runs: number;
  roundsPerRun: number;
  toolCallsPerRun: number;
  refusedPerRun: number;
  redundantPerRun: number;
  unproductivePerRun: number;
  /** Runs that produced a Draft without any tool call. */
  answeredWithoutTools: number;
  /** Mean share of the Draft's items the guards removed, over runs with a non-empty Draft. */
  guardRemovedShare: number | null;
  /** Mean citations per finding, over runs with a finding. */
  citationsPerFinding: number | null;
  modelMsPerRun: number;
  toolMsPerRun: number;
}

export interface CategorySummary {
  scenarios: number;
  ran: number;
  correct: number;
  meanPoints: number | null;
  process: ProcessSummary | null;
}

const ratio = (part: number, whole: number) => (whole === 0 ? null : part / whole);
const mean = (values: readonly number[]) =>
  values.length === 0 ? null : values.reduce((sum, value) => sum + value, 0) / values.length;

/** The nearest-rank percentile of a list of numbers (null when empty). */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] as number;
}

/** The process scorecards of some runs, averaged; null when none has one. */
export function summarizeProcess(cards: readonly ProcessScorecard[]): ProcessSummary | null {
  if (cards.length === 0) return null;
  const per = (value: (card: ProcessScorecard) => number) => mean(cards.map(value)) as number;
  const shares = cards.flatMap((card) => (card.guards.removedShare === null ? [] : [card.guards.removedShare]));
  const citations = cards.flatMap((card) => (card.citationsPerFinding === null ? [] : [card.citationsPerFinding]));
  return {
    runs: cards.length,
    roundsPerRun: per((card) => card.rounds),
    toolCallsPerRun: per((card) => card.toolCalls.total),
    refusedPerRun: per((card) => card.toolCalls.refused),
    redundantPerRun: per((card) => card.toolCalls.redundant),
    unproductivePerRun: per((card) => card.toolCalls.unproductive),
    answeredWithoutTools: cards.filter((card) => card.answeredWithoutTools).length,
    guardRemovedShare: mean(shares),
    citationsPerFinding: mean(citations),
    modelMsPerRun: per((card) => card.timeMs.model),
    toolMsPerRun: per((card) => card.timeMs.tools),
  };
}

function cardsOf(runs: readonly ScenarioRun[]): ProcessScorecard[] {
  return runs.flatMap((run) => (run.process === null || run.process === undefined ? [] : [run.process]));
}

function byCategory(runs: readonly ScenarioRun[]): Record<string, CategorySummary> {
  const categories = [...new Set(runs.map((run) => run.category))].sort();
  return Object.fromEntries(
    categories.map((category) => {
      const rows = runs.filter((run) => run.category === category);
      const ran = rows.filter((run) => run.status === 'RAN' && run.verdict !== null);
      return [
        category,
        {
          scenarios: rows.length,
          ran: ran.length,
          correct: ran.filter((run) => run.verdict === 'CORRECT').length,
          meanPoints: mean(ran.map((run) => VERDICT_POINTS[run.verdict as ScenarioVerdict])),
          process: summarizeProcess(cardsOf(ran)),
        },
      ];
    }),
  );
}

export function summarize(runs: readonly ScenarioRun[]): EvalSummary {
  const ran = runs.filter((run) => run.status === 'RAN');
  const verdicts = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<ScenarioVerdict, number>;
  for (const run of ran) if (run.verdict !== null) verdicts[run.verdict] += 1;
  const abstained = ran.filter((run) => run.score?.abstained === true);
  const expectAbstain = ran.filter((run) => run.expectedOutcome === 'ABSTAIN');
  const probes = runs.flatMap((run) => run.probes);
  const evidenceProbes = probes.filter((probe) => probe.expect === 'EVIDENCE');
  const emptyProbes = probes.filter((probe) => probe.expect === 'EMPTY');
  const measured = ran.flatMap((run) => (run.measured === null ? [] : [run.measured]));
  const costTotalUsd = ran.reduce((sum, run) => sum + run.costUsd, 0);
  const asExpected = runs.filter((run) => run.passed).length;
  return {
    scenarios: runs.length,
    ran: ran.length,
    probesOnly: runs.filter((run) => run.status === 'PROBES_ONLY').length,
    skipped: runs.filter((run) => run.status === 'SKIPPED').length,
    errors: runs.filter((run) => run.status === 'ERROR').length,
    verdicts,
    accuracy: ratio(verdicts.CORRECT, ran.length),
    meanPoints:
      ran.length === 0
        ? null
        : ran.reduce((sum, run) => sum + (run.verdict === null ? 0 : VERDICT_POINTS[run.verdict]), 0) / ran.length,
    confidentlyWrong: verdicts.CONFIDENTLY_WRONG,
    abstentionPrecision: ratio(abstained.filter((run) => run.expectedOutcome === 'ABSTAIN').length, abstained.length),
    abstentionRecall: ratio(expectAbstain.filter((run) => run.score?.abstained === true).length, expectAbstain.length),
    probes: {
      total: probes.length,
      passed: probes.filter((probe) => probe.passed).length,
      evidenceRecall: ratio(evidenceProbes.filter((probe) => probe.passed).length, evidenceProbes.length),
      emptyPassed: ratio(emptyProbes.filter((probe) => probe.passed).length, emptyProbes.length),
    },
    tokensPerRun: ran.length === 0 ? null : ran.reduce((sum, run) => sum + run.usage.totalTokens, 0) / ran.length,
    measuredTokensPerRun: mean(measured.map((usage) => usage.totalTokens)),
    measuredInputTokensPerRun: mean(measured.map((usage) => usage.inputTokens)),
    costPerRunUsd: ran.length === 0 ? null : costTotalUsd / ran.length,
    costTotalUsd,
    latencyP50Ms: percentile(
      ran.map((run) => run.latencyMs),
      50,
    ),
    latencyP95Ms: percentile(
      ran.map((run) => run.latencyMs),
      95,
    ),
    asExpected,
    allAsExpected: runs.length > 0 && asExpected === runs.length,
    process: summarizeProcess(cardsOf(ran)),
    byCategory: byCategory(runs),
    captured: {
      scenarios: runs.filter((run) => run.captured !== null && run.captured !== undefined).length,
      regressed: runs.filter((run) => run.captured?.regressed === true).length,
    },
    pastIncidents: summarizePastIncidents(ran),
  };
}

function summarizePastIncidents(ran: readonly ScenarioRun[]): EvalSummary['pastIncidents'] {
  const roundsOf = new Map(ran.flatMap((run) => (run.process === null ? [] : [[run.id, run.process.rounds] as const])));
  return {
    hits: ran.reduce((sum, run) => sum + (run.observation?.pastIncidents.seen ?? 0), 0),
    removed: ran.reduce((sum, run) => sum + (run.observation?.pastIncidents.removed ?? 0), 0),
    roundsSaved: ran.flatMap((run) => {
      const rounds = roundsOf.get(run.id);
      const baselineRounds = run.baseline === null ? undefined : roundsOf.get(run.baseline);
      if (run.baseline === null || rounds === undefined || baselineRounds === undefined) return [];
      return [{ scenario: run.id, baseline: run.baseline, rounds, baselineRounds, saved: baselineRounds - rounds }];
    }),
  };
}
