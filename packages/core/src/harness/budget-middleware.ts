import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { LanguageModelMiddleware } from 'ai';
import type { RunContext } from '../run/run-context.ts';
import { outputTokenCap, overRoundToolCallLimit, overranTokens, refuseRound } from './budget-policy.ts';
import type { CollectionState } from './collection-state.ts';
import { AuditFailure, HarnessFault, HarnessStop, ModelCallFailure } from './harness-signals.ts';
import { addRoundUsage, roundUsage } from './round-usage.ts';

export interface BudgetMiddlewareOptions {
  run: RunContext;
  collection: CollectionState;
  /** The run's own signal: aborted at the deadline, on cancellation and on an audit failure. */
  runSignal: AbortSignal;
  /** Called after every counted round (live progress); must not throw. */
  onRound?: () => void;
  /**
   * Started with every round's provider request and awaited before the round's answer is used (the run's cancel
   * read): it may abort `runSignal`, which aborts the request in flight; it must not throw.
   */
  duringRound?: () => Promise<void>;
}

/**
 * The harness's hold on every model round, built per run: clamp and accounting only, the comparisons are the budget
 * policy's. Before the provider is reached it refuses the round when the run is cancelled, past its deadline, or out
 * of model calls or tokens, and caps the output tokens at what is left; after the round it counts the usage (also
 * when the round's audit failed; estimated when the provider reported none) and discards a round that overran the token
 * budget or asked for more tool calls than a round may (both stop the run). It never retries and never lets a provider
 * failure pass as anything but a typed failure. Compose it outside the audit middleware. `duringRound` runs alongside
 * the provider request, so a round waits on no read before its request; an answer is used only once it has settled.
 */
export function createBudgetMiddleware(options: BudgetMiddlewareOptions): LanguageModelMiddleware {
  const { run, collection, runSignal } = options;
  const { usage } = run.ledger;

  const account = (params: LanguageModelV4CallOptions, result: LanguageModelV4GenerateResult) => {
    // NOTE: a round the provider reported no usage for is counted with the harness's conservative estimate, so the
    // token budget holds for every provider.
    collection.lastRoundTokens = addRoundUsage(usage, roundUsage(params, result));
    collection.observationBytesSinceRound = 0;
  };

  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => ({
      ...params,
      // NOTE: output can never exceed what is left of the token budget, whatever the model wants.
      maxOutputTokens: outputTokenCap(run, params.maxOutputTokens),
      abortSignal: runSignal,
    }),
    wrapGenerate: async ({ doGenerate, params }) => {
      if (runSignal.aborted) throw runSignal.reason;
      const refusal = refuseRound(run);
      if (refusal !== null) throw new HarnessStop(refusal);
      usage.modelCalls += 1;
      // NOTE: the check is started with the request, not before it (no sequential round trip per round); a cancel it
      // finds aborts the request in flight, and an answer that came first is counted and audited but never used: no
      // tool of it runs and no round follows it. It never throws (a failed read is ignored by its owner).
      const check = options.duringRound?.().catch(() => undefined);
      let result: LanguageModelV4GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        await check;
        if (error instanceof AuditFailure) {
          // NOTE: the provider answered and the round is counted; only its audit failed.
          if (error.roundResult !== undefined) account(params, error.roundResult);
          throw error;
        }
        if (error instanceof HarnessFault) throw error;
        if (runSignal.aborted) throw runSignal.reason;
        throw new ModelCallFailure('provider call failed', { cause: error });
      }
      account(params, result);
      options.onRound?.();
      await check;
      if (runSignal.aborted) throw runSignal.reason;
      // A round that overran the token budget is discarded: no tool of it runs, no Draft of it is used.
      if (overranTokens(run)) throw new HarnessStop('TOKEN_BUDGET');
      // NOTE: so is a round that asked for more tool calls than a round may: none of them reaches the tool boundary,
      // so it adds no audit item; its step (audited inside) names the first 100 calls and counts them all.
      const toolCalls = result.content.filter((part) => part.type === 'tool-call').length;
      if (overRoundToolCallLimit(run, toolCalls)) throw new HarnessStop('ROUND_TOOL_CALL_LIMIT');
      return result;
    },
  };
}
