import * as v from 'valibot';

/**
 * The process scorecard of one run: how it worked, not whether its answer was right. Every figure is computed from
 * the run's audit (its steps, tool invocations and run item) by `buildProcessScorecard`
 * (`report/process-scorecard.ts`), where each metric is defined once; docs/learning-from-runs.md gives the formulas.
 * The shape lives here, below `store/` and `report/`, because the run item stores it and both read it.
 */
export interface ProcessScorecard {
  version: 1;
  /** The agent's model rounds (AGENT steps). */
  rounds: number;
  /** The SemanticGuard's calls (JUDGE steps). */
  judgeCalls: number;
  toolCalls: {
    /** Every tool call that reached the boundary, whatever became of it. */
    total: number;
    /** Calls the business tool ran (READY or ERROR). */
    executed: number;
    /** Executed calls that returned evidence (READY and not empty). */
    evidence: number;
    /** Executed calls that returned nothing (READY and empty). */
    empty: number;
    /** Executed calls that failed (ERROR). */
    error: number;
    /** Calls the boundary refused (REJECTED), and why. */
    refused: number;
    refusedByCode: Record<string, number>;
    /** Calls that came after collection stopped (STOPPED). */
    stopped: number;
    /** Calls whose tool and canonical business input equal those of an earlier executed call. */
    redundant: number;
    /** Executed calls the agent itself judged NO_GAIN in its next call. */
    noGain: number;
    /** Executed calls that returned nothing, errored or were judged NO_GAIN (each call counted once). */
    unproductive: number;
  };
  /** The run produced a Draft without executing any tool call. */
  answeredWithoutTools: boolean;
  guards: {
    /** Items of the agent's Draft: its analysis items, and its conclusion when it has one. Null: no Draft. */
    draftItems: number | null;
    /** Of those, how many the guards kept out of the published result (all of them when nothing was published). */
    removedItems: number | null;
    /** removedItems / draftItems; null without a Draft or with an empty one. */
    removedShare: number | null;
  };
  /** Tool call ids cited per FINDING of the Draft that was published (else the agent's Draft); null: no finding. */
  citationsPerFinding: number | null;
  tokens: {
    input: number;
    output: number;
    reasoning: number;
    cachedInput: number;
    total: number;
    /** Rounds whose tokens are the harness's estimate (the provider reported none). */
    estimatedRounds: number;
  };
  /** What the run used of its limits; `allowed` is null when the run item holds no limits. */
  budget: {
    modelCalls: BudgetUse;
    toolCalls: BudgetUse;
    tokens: BudgetUse;
    refusedCalls: BudgetUse;
  };
  timeMs: {
    /** Summed over the agent's rounds (each round's end minus its start). */
    model: number;
    /** Summed over the judge's calls. */
    judge: number;
    /** Summed over executed tool calls. */
    tools: number;
    /** From the first audited start to the last audited end. */
    span: number;
    /** The deadline minus the last audited end; null when the run item holds no deadline or nothing was audited. */
    leftAtEnd: number | null;
  };
}

export interface BudgetUse {
  used: number;
  allowed: number | null;
}

export const PROCESS_SCORECARD_VERSION = 1;
/** The most refusal codes one scorecard lists (the boundary has seven). */
export const MAX_REFUSAL_CODES = 16;

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const share = v.nullable(v.pipe(v.number(), v.minValue(0)));
const budgetUse = v.object({ used: count, allowed: v.nullable(count) });

/** The stored form of a {@link ProcessScorecard} (the run item's `process_scorecard`), checked on every read. */
export const processScorecardSchema = v.object({
  version: v.literal(PROCESS_SCORECARD_VERSION),
  rounds: count,
  judgeCalls: count,
  toolCalls: v.object({
    total: count,
    executed: count,
    evidence: count,
    empty: count,
    error: count,
    refused: count,
    refusedByCode: v.pipe(
      v.record(v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{0,63}$/)), count),
      v.check((codes) => Object.keys(codes).length <= MAX_REFUSAL_CODES, 'at most 16 refusal codes'),
    ),
    stopped: count,
    redundant: count,
    noGain: count,
    unproductive: count,
  }),
  answeredWithoutTools: v.boolean(),
  guards: v.object({ draftItems: v.nullable(count), removedItems: v.nullable(count), removedShare: share }),
  citationsPerFinding: share,
  tokens: v.object({
    input: count,
    output: count,
    reasoning: count,
    cachedInput: count,
    total: count,
    estimatedRounds: count,
  }),
  budget: v.object({ modelCalls: budgetUse, toolCalls: budgetUse, tokens: budgetUse, refusedCalls: budgetUse }),
  timeMs: v.object({ model: count, judge: count, tools: count, span: count, leftAtEnd: v.nullable(v.number()) }),
});
