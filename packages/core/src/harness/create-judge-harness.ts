import type { LanguageModelV4, LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { type LanguageModel, type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import type { RunContext } from '../run/run-context.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import { createAuditMiddleware } from './audit-middleware.ts';
import { judgeOverranTokens, judgeTimeBudgetMs } from './budget-policy.ts';
import { AuditFailure } from './harness-signals.ts';
import type { JudgeBudget } from './judge-budget.ts';
import { raceAbort } from './race-abort.ts';
import { addRoundUsage, roundUsage } from './round-usage.ts';

/** Why the judge's call gave no usable answer; each one makes an enforcing SemanticGuard fail closed. */
export const JUDGE_FAILURES = Object.freeze([
  'NO_TIME',
  'PROMPT_TOO_LARGE',
  'TIMEOUT',
  'TOKEN_BUDGET',
  'MODEL_FAILED',
  'INVALID_OUTPUT',
  'AUDIT_FAILED',
  'CANCELLED',
] as const);
export type JudgeFailure = (typeof JUDGE_FAILURES)[number];

/** The abort reason of a judge call that outlived its share of the run's time. */
export class JudgeTimeout extends Error {
  override readonly name = 'JudgeTimeout';
}

/** The judge's call used more tokens than its budget: its answer is void. */
export class JudgeOverBudget extends Error {
  override readonly name = 'JudgeOverBudget';
}

/**
 * The harness around the SemanticGuard's one model call, built per run after the agent's loop: the judge's own model
 * wrapped by a small budget middleware (counts the call and its tokens in the run's usage, voids an answer over the
 * judge's token budget), the audit middleware (`role: 'JUDGE'`, so the call is stored like a step but told apart) and
 * a time limit (its share of what is left, see `judgeTimeBudgetMs`) enforced by an abort signal that also ends the
 * call when the run is cancelled, even if the provider ignores it. Returns null when too little time is left to ask.
 * NOTE: it wraps only the model it is given; it never touches the agent's model or conversation.
 */
export function createJudgeHarness(options: {
  run: RunContext;
  model: LanguageModel;
  limits: JudgeBudget;
  audit?: AuditHook | undefined;
}) {
  const { run, limits, audit } = options;
  const timeMs = judgeTimeBudgetMs(run, limits);
  if (timeMs === null) return null;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new JudgeTimeout(`no judge answer within ${timeMs} ms`)), timeMs);
  const signal = run.signal === undefined ? timeout.signal : AbortSignal.any([run.signal, timeout.signal]);
  const { usage } = run.ledger;

  // NOTE: counted exactly as an agent round (estimated where the provider reported nothing), so the run's usage and
  // the audited JUDGE step agree.
  const account = (params: LanguageModelV4CallOptions, result: LanguageModelV4GenerateResult) =>
    addRoundUsage(usage, roundUsage(params, result));
  const budget: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => ({
      ...params,
      maxOutputTokens: limits.maxOutputTokens,
      abortSignal: signal,
    }),
    wrapGenerate: async ({ doGenerate, params }) => {
      if (signal.aborted) throw signal.reason;
      usage.modelCalls += 1;
      let result: LanguageModelV4GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        if (error instanceof AuditFailure && error.roundResult !== undefined) account(params, error.roundResult);
        throw error;
      }
      if (judgeOverranTokens(limits, account(params, result)))
        throw new JudgeOverBudget('the judge overran its tokens');
      return result;
    },
  };
  const deadline: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    wrapGenerate: ({ model, params }) => raceAbort(model.doGenerate({ ...params, abortSignal: signal }), signal),
  };
  const model = wrapLanguageModel({
    model: options.model as LanguageModelV4,
    middleware:
      audit === undefined
        ? [budget, deadline]
        : [budget, createAuditMiddleware({ run, audit, role: 'JUDGE' }), deadline],
  });

  return {
    model,
    abortSignal: signal,
    timeMs,
    maxOutputTokens: limits.maxOutputTokens,
    /** NOTE: the abort reason (time, cancellation) wins over whatever the SDK surfaced while unwinding. */
    classify(error: unknown): JudgeFailure {
      const cause = signal.aborted ? signal.reason : error;
      if (cause instanceof JudgeTimeout) return 'TIMEOUT';
      if (signal.aborted) return 'CANCELLED';
      if (cause instanceof JudgeOverBudget) return 'TOKEN_BUDGET';
      if (cause instanceof AuditFailure) return 'AUDIT_FAILED';
      return 'MODEL_FAILED';
    },
    dispose: () => clearTimeout(timer),
  };
}
