import * as v from 'valibot';

/**
 * The time window of an incident, set by code (never by the model): two UTC instants in ISO 8601 form
 * (`2026-11-30T06:05:00.000Z`). A run that has one may only look at evidence whose time range overlaps it.
 */
export interface IncidentWindow {
  from: string;
  to: string;
}

/** The longest window a run may carry (a caller's window on `POST /diagnoses`, or an alarm's lookback to now). */
export const MAX_INCIDENT_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/;

const instant = v.pipe(
  v.string(),
  v.maxLength(40),
  v.regex(ISO_INSTANT, 'ISO 8601 with an offset'),
  v.check((value) => Number.isFinite(Date.parse(value)), 'a valid instant'),
);

/**
 * A window as a caller or a stored item writes it: ISO instants with an offset, `from` before `to`, at most
 * {@link MAX_INCIDENT_WINDOW_MS} long. Its output is normalised to UTC (`toISOString`), the one form that is stored.
 */
export const incidentWindowSchema = v.pipe(
  v.strictObject({ from: instant, to: instant }),
  v.check((window) => Date.parse(window.from) < Date.parse(window.to), 'from before to'),
  v.check((window) => Date.parse(window.to) - Date.parse(window.from) <= MAX_INCIDENT_WINDOW_MS, 'at most 7 days'),
  v.transform(
    (window): IncidentWindow => ({
      from: new Date(Date.parse(window.from)).toISOString(),
      to: new Date(Date.parse(window.to)).toISOString(),
    }),
  ),
);

/**
 * The window of a triggered run: from the time the alarm changed state minus `lookbackMs`, to `nowMs`. Null when
 * that is no window (the state change lies in the future beyond the lookback, or longer ago than the longest window).
 */
export function buildIncidentWindow(stateChangedAt: number, lookbackMs: number, nowMs: number): IncidentWindow | null {
  const from = stateChangedAt - lookbackMs;
  if (!Number.isFinite(from) || !(from < nowMs) || nowMs - from > MAX_INCIDENT_WINDOW_MS) return null;
  return { from: new Date(from).toISOString(), to: new Date(nowMs).toISOString() };
}

/**
 * Whether the closed range `[startMs, endMs]` overlaps the window (a single instant: `startMs === endMs`). NOTE: one
 * rule for every time a tool call names: a `query_logs` window and the span of a catalog query's time parameters.
 */
export function overlapsIncidentWindow(window: IncidentWindow, startMs: number, endMs: number): boolean {
  return startMs <= Date.parse(window.to) && endMs >= Date.parse(window.from);
}

export function sameIncidentWindow(a: IncidentWindow | null | undefined, b: IncidentWindow | null | undefined) {
  return (a ?? null) === null ? (b ?? null) === null : a?.from === b?.from && a?.to === b?.to;
}
