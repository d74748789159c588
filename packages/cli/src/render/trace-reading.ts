/**
 * How every rendering of a trace reads it: durations, numbers, each tool call's outcome and the model's judgement of
 * it. NOTE: one reading for the timeline, the Mermaid diagram and the page, so they show the same run the same way.
 */
import type { StoredToolInvocation } from '@diagnosis/core/store';
import type { RunTrace } from './load-run-trace.ts';

/** Milliseconds from `from` to `to`; 0 while `to` is not known yet. */
export const elapsedMs = (from: string, to: string | null) => (to === null ? 0 : Date.parse(to) - Date.parse(from));
/** A duration as shown: `1.25 s`. */
export const formatSeconds = (value: number) => `${(value / 1_000).toFixed(2)} s`;
/** A count as shown: `12,345`. */
export const formatCount = (value: number) => value.toLocaleString('en');

/** How the model judged each result; a result still PENDING at the end was not judged (the Draft came next). */
export function judgedEvaluations(trace: RunTrace): Map<string, string> {
  return new Map(
    (trace.run.progress?.checks ?? []).map((check) => [
      check.toolCallId,
      check.evaluation === 'PENDING' ? 'not judged' : (check.evaluation ?? ''),
    ]),
  );
}

/** A tool call's outcome in one phrase: `READY (evidence)`, `READY (no match)`, `ERROR TIMEOUT`, `REJECTED …`. */
export function toolOutcome(tool: StoredToolInvocation): string {
  if (tool.disposition === 'STOPPED') return 'STOPPED (STOP_REQUIRED)';
  if (tool.disposition === 'REJECTED') return `REJECTED ${tool.code ?? ''}`.trim();
  if (tool.status === 'ERROR') return `ERROR ${tool.code ?? ''}`.trim();
  return tool.empty ? 'READY (no match)' : 'READY (evidence)';
}
