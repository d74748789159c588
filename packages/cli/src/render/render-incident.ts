import type { StoredRun } from '@diagnosis/core';
import type { IncidentEventRecord } from '@diagnosis/core/store';
import { printable } from '../command-line.ts';

/**
 * What started a triggered run, for the terminal: the source and alarm, the incident key, the window set by code,
 * and the incident's later events recorded on the run — each with what it said (firing again, updated, acknowledged,
 * resolved, reopened) — and where the incident stands by the last of them. Empty for a caller's run.
 */
export function renderIncident(run: Pick<StoredRun, 'trigger' | 'window'>, events: readonly IncidentEventRecord[]) {
  if (run.trigger === null) return '';
  const lines = [
    `trigger: ${run.trigger.source} “${printable(run.trigger.title)}” started ${run.trigger.startedAt} (event ${printable(run.trigger.eventId)})`,
    `incident: ${printable(run.trigger.incidentKey)}`,
  ];
  if (run.window !== null) lines.push(`incident window (UTC): ${run.window.from} – ${run.window.to}`);
  lines.push(`attached incident events: ${events.length}${standing(events)}`);
  for (const event of events) {
    lines.push(
      `  ${String(event.sequence).padStart(3)}  ${event.receivedAt}  ${event.kind.padEnd(12)}  ${printable(event.eventId)}`,
    );
  }
  return lines.join('\n');
}

/** `, last said RESOLVED at …` from the newest lifecycle event; nothing while every event only said it still fires. */
function standing(events: readonly IncidentEventRecord[]): string {
  const last = events.findLast((event) => event.kind !== 'FIRING' && event.kind !== 'UPDATED');
  return last === undefined ? '' : ` (last said ${last.kind} at ${last.receivedAt})`;
}
