import type { IncidentWindow } from './incident-window.ts';
import { buildRunLimits, type RunLimits } from './run-limits.ts';
import type { RunIdentity } from './run-request.ts';
import { DEFAULT_TIME_ZONE, isTimeZone } from './zoned-time.ts';

/** What one run has consumed so far. */
export interface RunUsage {
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens the provider served from its prompt cache (DeepSeek's `prompt_cache_hit_tokens`). */
  cachedInputTokens: number;
  toolCalls: number;
  inputBytes: number;
  outputBytes: number;
  /** Model rounds whose tokens are the harness's estimate because the provider reported no usage. */
  estimatedTokenRounds: number;
}

export interface RunContextInit extends RunIdentity {
  /** Epoch milliseconds after which no model or tool work may run. */
  deadlineAt: number;
  limits?: Partial<RunLimits>;
  /** Cancellation from outside (the Lambda's timeout signal, a caller's abort). */
  signal?: AbortSignal;
  /** Clock; tests inject one. */
  now?: () => number;
  /** When the run started (epoch ms); default: `now()` when the context is created. */
  startedAt?: number;
  /** The deployment's time zone (an IANA name), in which the model reads the run's start time; default Asia/Shanghai. */
  timeZone?: string;
  /** The incident window every time range of a tool call must overlap; absent: no window. */
  window?: IncidentWindow;
  /** When the run's incident began as its trigger reports it (an ISO instant); absent: the run was not triggered. */
  symptomAt?: string;
}

/**
 * What a run has consumed. NOTE: it is part of the RunContext in plain sight, but only the harness writes it (the
 * budget middleware counts rounds and tokens, the tool interceptor counts executed calls); everyone else reads a copy
 * through `run.usage()`.
 */
export interface RunLedger {
  usage: RunUsage;
  /** Set when a `runDiagnosis` call took this context; a context is never reused. */
  claimed: boolean;
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
  /** When the run started (epoch ms): the model is told this time as "now". */
  readonly startedAt: number;
  /** The IANA time zone in which the model reads times without an offset ("从 14:05 开始"). */
  readonly timeZone: string;
  /** The incident window (UTC) set by code: the tool boundary refuses time ranges outside it; null: none. */
  readonly window: Readonly<IncidentWindow> | null;
  /** When the incident's symptom began (UTC ISO), set by code from the run's trigger; null: not triggered. */
  readonly symptomAt: string | null;
  readonly limits: Readonly<RunLimits>;
  readonly signal: AbortSignal | undefined;
  readonly now: () => number;
  /** Written by the harness only; see {@link RunLedger}. */
  readonly ledger: RunLedger;
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
    cachedInputTokens: 0,
    toolCalls: 0,
    inputBytes: 0,
    outputBytes: 0,
    estimatedTokenRounds: 0,
  };
}

export function createRunContext(init: RunContextInit): RunContext {
  for (const key of ['runId', 'sessionId', 'enterpriseId'] as const) {
    if (typeof init[key] !== 'string' || init[key].length === 0) {
      throw new TypeError(`RunContext ${key} must be a non-empty string`);
    }
  }
  if (!Number.isFinite(init.deadlineAt)) throw new TypeError('RunContext deadlineAt must be a finite epoch ms');
  const timeZone = init.timeZone ?? DEFAULT_TIME_ZONE;
  if (!isTimeZone(timeZone)) throw new TypeError('RunContext timeZone must be an IANA time zone name');
  const now = init.now ?? Date.now;
  const startedAt = init.startedAt ?? now();
  if (!Number.isFinite(startedAt)) throw new TypeError('RunContext startedAt must be a finite epoch ms');
  const symptomAtMs = init.symptomAt === undefined ? null : Date.parse(init.symptomAt);
  if (symptomAtMs !== null && !Number.isFinite(symptomAtMs)) {
    throw new TypeError('RunContext symptomAt must be an ISO instant');
  }
  const ledger: RunLedger = { usage: emptyRunUsage(), claimed: false };
  return Object.freeze({
    runId: init.runId,
    sessionId: init.sessionId,
    enterpriseId: init.enterpriseId,
    deadlineAt: init.deadlineAt,
    startedAt,
    timeZone,
    window: init.window === undefined ? null : Object.freeze({ from: init.window.from, to: init.window.to }),
    symptomAt: symptomAtMs === null ? null : new Date(symptomAtMs).toISOString(),
    limits: buildRunLimits(init.limits),
    signal: init.signal,
    now,
    ledger,
    usage: () => ({ ...ledger.usage }),
  });
}

/** The ledger of a run (kept for the harness's unit tests; it is `run.ledger`). */
export function runLedger(run: RunContext): RunLedger {
  return run.ledger;
}
