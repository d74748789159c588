import { overlapsIncidentWindow } from '../run/incident-window.ts';
import type { RunContext } from '../run/run-context.ts';
import { formatZonedIso } from '../run/zoned-time.ts';
import { canonicalInput } from '../tools/canonical-input.ts';
import type { MysqlQueryDescriptor, ToolName } from '../tools/evidence-adapter.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';
import type { ToolCallId } from '../tools/tool-call-id.ts';
import type { CallTimeRange, ParsedEnvelope, PreviousObservation } from '../tools/tool-inputs.ts';
import { inFinalRoundReserve } from './budget-policy.ts';
import { type CollectionState, stopCollection } from './collection-state.ts';
import type { ProgressTracker } from './progress-tracker.ts';
import { stopWhenSaturated } from './stop-when-saturated.ts';
import { rejectedOutcome, stoppedOutcome, type ToolOutcome } from './tool-outcome.ts';
import { unmaskToolInput } from './unmask-tool-input.ts';

/** What the admission of a call reads and updates: the run's progress protocol and its collection state. */
export interface AdmissionContext {
  run: RunContext;
  tracker: ProgressTracker;
  collection: CollectionState;
  masking: MaskingSession;
  catalog: readonly MysqlQueryDescriptor[];
  parseEnvelope: (toolName: ToolName, raw: unknown) => ParsedEnvelope;
}

/** An admitted call's business input (real values, parsed) and its canonical form; or the answer to a refused one. */
export type Admission =
  | { admitted: true; input: unknown; canonical: string }
  | { admitted: false; outcome: ToolOutcome };

/**
 * Decides whether a call with a checked id may run, in the order the spec gives: a fresh id, collection still open,
 * only pseudonyms the run has shown, a valid envelope and business input, a time range inside the incident window,
 * the progress protocol (a pending non-empty result is evaluated by this call, naming its exact id), and no repeat
 * of an executed input. A refusal is REJECTED, a call after collection ended is STOPPED; neither runs an adapter.
 */
export function admitToolCall(
  context: AdmissionContext,
  toolName: ToolName,
  rawInput: unknown,
  toolCallId: ToolCallId,
): Admission {
  const { run, tracker, collection } = context;
  const refuse = (outcome: ToolOutcome): Admission => ({ admitted: false, outcome });
  if (!tracker.claimToolCallId(toolCallId)) return refuse(rejectedOutcome(toolCallId, 'DUPLICATE_TOOL_CALL_ID'));
  // NOTE: the tool-call budget needs no check here: the call that reaches it stops collection right after it runs.
  if (inFinalRoundReserve(run)) stopCollection(collection, 'DEADLINE');
  if (collection.stopReason !== null) return refuse(stoppedOutcome(toolCallId));

  const unmasked = unmaskToolInput(toolName, rawInput, context.masking, context.catalog);
  if (unmasked === null) return refuse(rejectedOutcome(toolCallId, 'UNKNOWN_PSEUDONYM'));
  const parsed = context.parseEnvelope(toolName, unmasked);
  if (!parsed.ok) return refuse(rejectedOutcome(toolCallId, 'INVALID_INPUT', { paths: parsed.paths }));
  const outside = outsideIncidentWindow(run, parsed.timeRange, toolCallId);
  if (outside !== null) return refuse(outside);
  const input = inputWithinWindow(run, parsed, context.catalog);
  if (input === null) return refuse(windowRefusal(run, toolCallId));
  const unevaluated = followProgressProtocol(context, parsed.envelope.previous_observation, toolCallId);
  if (unevaluated !== null) return refuse(unevaluated);

  const canonical = canonicalInput(toolName, input);
  if (tracker.isDuplicate(canonical)) {
    tracker.countNoGain();
    stopWhenSaturated(run, tracker, collection);
    return refuse(rejectedOutcome(toolCallId, 'DUPLICATE_CALL'));
  }
  return { admitted: true, input, canonical };
}

/**
 * The business input the adapter runs with: a time range that overlaps the run's incident window is clamped to it —
 * a `query_logs` window to the part inside, each of a catalog query's `datetime` parameters into the window — so a
 * 24-hour query reads only the window's hours (issue 32, hardening). Null when nothing of a logs window is left
 * (it only touches the window's edge). NOTE: the window's ends are rounded inwards to whole seconds, the precision
 * the clamped times are written with; the audit keeps the model's own input, the adapter reads this one.
 */
function inputWithinWindow(
  run: RunContext,
  parsed: Extract<ParsedEnvelope, { ok: true }>,
  catalog: readonly MysqlQueryDescriptor[],
): unknown {
  if (run.window === null || parsed.timeRange === null) return parsed.envelope.input;
  const openedAt = Date.parse(run.window.from);
  const closedAt = Date.parse(run.window.to);
  const from = Math.min(Math.ceil(openedAt / 1_000) * 1_000, closedAt);
  const to = Math.max(Math.floor(closedAt / 1_000) * 1_000, from);
  const clamp = (time: string) => {
    const at = Date.parse(time);
    if (at < from) return formatZonedIso(from, run.timeZone);
    if (at > to) return formatZonedIso(to, run.timeZone);
    return time;
  };
  if (parsed.toolName === 'query_logs') {
    const logs = parsed.envelope.input;
    const start = clamp(logs.start_time);
    const end = clamp(logs.end_time);
    return Date.parse(start) < Date.parse(end) ? { ...logs, start_time: start, end_time: end } : null;
  }
  const mysql = parsed.envelope.input;
  const entry = catalog.find((descriptor) => descriptor.name === mysql.query_name);
  const params = Object.fromEntries(
    Object.entries(mysql.params).map(([name, value]) =>
      entry?.params[name]?.type === 'datetime' && typeof value === 'string' ? [name, clamp(value)] : [name, value],
    ),
  );
  return { ...mysql, params };
}

/**
 * The refusal of a time range outside the run's incident window, or null. NOTE: the window is the run's, set by code;
 * a range outside it is refused like a bad input, before the adapter runs, whatever the model chose.
 */
function outsideIncidentWindow(
  run: RunContext,
  timeRange: CallTimeRange | null,
  toolCallId: ToolCallId,
): ToolOutcome | null {
  if (run.window === null || timeRange === null) return null;
  if (overlapsIncidentWindow(run.window, timeRange.startMs, timeRange.endMs)) return null;
  return windowRefusal(run, toolCallId);
}

function windowRefusal(run: RunContext, toolCallId: ToolCallId): ToolOutcome {
  const window = run.window ?? { from: '', to: '' };
  return rejectedOutcome(toolCallId, 'OUTSIDE_INCIDENT_WINDOW', {
    window: {
      from: formatZonedIso(Date.parse(window.from), run.timeZone),
      to: formatZonedIso(Date.parse(window.to), run.timeZone),
    },
  });
}

/**
 * Applies the model's evaluation of the pending result, or refuses the call that skips or misnames it (or evaluates
 * when nothing is pending); null when the call may go on. An evaluation may saturate collection: then STOPPED.
 */
function followProgressProtocol(
  context: AdmissionContext,
  previous: PreviousObservation | undefined,
  toolCallId: ToolCallId,
): ToolOutcome | null {
  const { run, tracker, collection } = context;
  const pending = tracker.pending();
  if (pending === undefined) {
    return previous === undefined ? null : rejectedOutcome(toolCallId, 'PREVIOUS_OBSERVATION_MISMATCH');
  }
  const expected = { expectedToolCallId: pending.toolCallId };
  if (previous === undefined) return rejectedOutcome(toolCallId, 'MISSING_PREVIOUS_OBSERVATION', expected);
  if (previous.tool_call_id !== pending.toolCallId) {
    return rejectedOutcome(toolCallId, 'PREVIOUS_OBSERVATION_MISMATCH', expected);
  }
  tracker.evaluate(pending, previous.evaluation);
  stopWhenSaturated(run, tracker, collection);
  return collection.stopReason === null ? null : stoppedOutcome(toolCallId);
}
