import { buildRunLimits, type RunLimits } from './run-limits.ts';

/** What one run has consumed so far. */
export interface RunUsage {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  toolCalls: number;
  inputBytes: number;
  outputBytes: number;
}

export interface RunContextInit {
  runId: string;
  sessionId: string;
  enterpriseId: string;
  /** Epoch milliseconds after which no model or tool work may run. */
  deadlineAt: number;
  limits?: Partial<RunLimits>;
  /** Cancellation from outside (the Lambda's timeout signal, a caller's abort). */
  signal?: AbortSignal;
  /** Clock; tests inject one. */
  now?: () => number;
}

/**
 * The explicit context of one diagnosis run: identity, tenant, deadline, limits, cancellation and the usage ledger.
 * It is passed by parameter (never through ambient state) and belongs to exactly one `runDiagnosis` call.
 */
export interface RunContext {
  readonly runId: string;
  readonly sessionId: string;
  readonly enterpriseId: string;
  readonly deadlineAt: number;
  readonly limits: Readonly<RunLimits>;
  readonly signal: AbortSignal | undefined;
  readonly now: () => number;
  /** A copy of the usage so far; mutating it changes nothing. */
  usage(): RunUsage;
}

/** Usage before anything ran. */
export function emptyRunUsage(): RunUsage {
  return {
    modelCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    toolCalls: 0,
    inputBytes: 0,
    outputBytes: 0,
  };
}

const ledgerKey: unique symbol = Symbol('run-ledger');

/** The mutable side of a RunContext, reachable only by the harness through {@link runLedger}. */
export interface RunLedger {
  usage: RunUsage;
  /** Set when a `runDiagnosis` call took this context; a context is never reused. */
  claimed: boolean;
}

interface RunContextWithLedger extends RunContext {
  readonly [ledgerKey]: RunLedger;
}

export function createRunContext(init: RunContextInit): RunContext {
  for (const key of ['runId', 'sessionId', 'enterpriseId'] as const) {
    if (typeof init[key] !== 'string' || init[key].length === 0) {
      throw new TypeError(`RunContext ${key} must be a non-empty string`);
    }
  }
  if (!Number.isFinite(init.deadlineAt)) throw new TypeError('RunContext deadlineAt must be a finite epoch ms');
  const ledger: RunLedger = {
    usage: emptyRunUsage(),
    claimed: false,
  };
  const context: RunContextWithLedger = {
    runId: init.runId,
    sessionId: init.sessionId,
    enterpriseId: init.enterpriseId,
    deadlineAt: init.deadlineAt,
    limits: buildRunLimits(init.limits),
    signal: init.signal,
    now: init.now ?? Date.now,
    usage: () => ({ ...ledger.usage }),
    [ledgerKey]: ledger,
  };
  return Object.freeze(context);
}

/** The harness's access to a run's ledger. Throws for an object that was not made by {@link createRunContext}. */
export function runLedger(run: RunContext): RunLedger {
  const ledger = (run as Partial<RunContextWithLedger>)[ledgerKey];
  if (ledger === undefined) throw new TypeError('RunContext must be created with createRunContext');
  return ledger;
}
