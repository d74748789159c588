import * as v from 'valibot';
import { deepFreeze } from '../draft/parse-diagnosis-draft.ts';
import type { PreviousTurn } from '../draft/previous-turn.ts';
import { DiagnosisInputError } from '../errors.ts';
import { tooLittleTimeForARound } from '../harness/budget-policy.ts';
import type { RunContext } from '../run/run-context.ts';
import type { RunLimits } from '../run/run-limits.ts';
import { utf8Bytes } from '../run/utf8.ts';
import { formatZonedIso } from '../run/zoned-time.ts';

const previousTurnSchema = v.strictObject({
  run_id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  query: v.pipe(v.string(), v.minLength(1)),
  conclusion: v.nullable(v.string()),
  findings: v.pipe(v.array(v.string()), v.maxLength(5)),
  missing_info: v.pipe(v.array(v.string()), v.maxLength(5)),
});

export type { PreviousTurn };

/** What the model is told of an incident window (the tool boundary enforces it whatever the model does). */
const INCIDENT_WINDOW_RULE =
  '本次诊断的事件时间窗由系统设定：query_logs 的时间范围和 query_mysql 的时间参数必须与此时间窗重叠，否则工具不会执行。';

/** The validated user message of a run and its UTF-8 size. */
export interface PreparedInput {
  text: string;
  bytes: number;
  previousTurn: PreviousTurn | null;
}

/** What the user message needs of its run: the input limits, its start time and time zone. */
export type InputRun = Pick<RunContext, 'startedAt' | 'timeZone'> & {
  /** The run's incident window, when it has one: told to the model beside `now`. */
  window?: RunContext['window'];
  limits: Pick<RunLimits, 'maxQueryBytes' | 'maxPreviousTurnBytes' | 'maxInputBytes'>;
};

/**
 * Validates the caller's input against the run's limits and serializes it as exactly
 * `JSON.stringify({ query, now, timezone, incident_window?, previous_turn })`. The query is kept byte for byte: it is never trimmed,
 * rewritten or truncated; an oversized one is refused.
 */
export function prepareDiagnosisInput(query: unknown, previousTurn: unknown, run: InputRun): PreparedInput {
  return composeDiagnosisInput(validateQuery(query, run.limits), previousTurn, run);
}

/** The caller's query, checked once: not blank, within `maxQueryBytes`. Throws {@link DiagnosisInputError}. */
export function validateQuery(query: unknown, limits: Pick<RunLimits, 'maxQueryBytes'>): string {
  if (typeof query !== 'string' || query.trim().length === 0) {
    throw new DiagnosisInputError('QUERY_BLANK', 'the query is blank');
  }
  if (utf8Bytes(query) > limits.maxQueryBytes) {
    throw new DiagnosisInputError('QUERY_TOO_LARGE', `the query exceeds ${limits.maxQueryBytes} UTF-8 bytes`);
  }
  return query;
}

/**
 * Refuses a run with too little time before its deadline for one model round (DEADLINE_TOO_SHORT), before any model
 * call: the one check and message for the service (before anything is written) and `runDiagnosis`.
 */
export function assertTimeForARound(limits: Pick<RunLimits, 'finalRoundReserveMs'>, remainingMs: number): void {
  if (tooLittleTimeForARound(limits, remainingMs)) {
    throw new DiagnosisInputError(
      'DEADLINE_TOO_SHORT',
      'too little time is left before the deadline for a model round',
    );
  }
}

/**
 * The user message of a run from an already validated query and a previous turn (checked here against the run's
 * own `maxPreviousTurnBytes`), within limits. It carries the run's start time as `now` (ISO 8601 with the offset of
 * the run's time zone) and the zone's name as `timezone`. NOTE: they travel in the user message, never in the
 * instructions, so the instructions stay byte-identical across runs and the provider's prompt cache keeps them.
 */
export function composeDiagnosisInput(query: string, previousTurn: unknown, run: InputRun): PreparedInput {
  const { limits } = run;
  let turn: PreviousTurn | null = null;
  if (previousTurn !== undefined && previousTurn !== null) {
    const parsed = v.safeParse(previousTurnSchema, previousTurn);
    if (!parsed.success) {
      throw new DiagnosisInputError('PREVIOUS_TURN_INVALID', 'the previous turn does not match its schema');
    }
    turn = deepFreeze(parsed.output);
    if (utf8Bytes(JSON.stringify(turn)) > limits.maxPreviousTurnBytes) {
      throw new DiagnosisInputError(
        'PREVIOUS_TURN_TOO_LARGE',
        `the previous turn exceeds ${limits.maxPreviousTurnBytes} UTF-8 bytes`,
      );
    }
  }
  // NOTE: `incident_window` only when the run has one, so a run without a window reads exactly as before.
  const window = run.window ?? null;
  const text = JSON.stringify({
    query,
    now: formatZonedIso(run.startedAt, run.timeZone),
    timezone: run.timeZone,
    ...(window === null
      ? {}
      : {
          incident_window: {
            from: formatZonedIso(Date.parse(window.from), run.timeZone),
            to: formatZonedIso(Date.parse(window.to), run.timeZone),
            rule: INCIDENT_WINDOW_RULE,
          },
        }),
    previous_turn: turn,
  });
  const bytes = utf8Bytes(text);
  if (bytes > limits.maxInputBytes) {
    throw new DiagnosisInputError('INPUT_TOO_LARGE', `the input exceeds ${limits.maxInputBytes} UTF-8 bytes`);
  }
  return { text, bytes, previousTurn: turn };
}
