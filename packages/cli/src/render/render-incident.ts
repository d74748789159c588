import type { StoredRun } from '@diagnosis/core';
import type { IncidentEventRecord } from '@diagnosis/core/store';
import { printable } from '../command-line.ts';

/**
 * What started a triggered run, for the terminal: the source and alarm, the incident key, the window set by code,
 * and the incident's later events that attached to the run. Empty for a caller's run.
 */
export function renderIncident(run: Pick<StoredRun, 'trigger' | 'window'>, events: readonly IncidentEventRecord[]) {
  if (run.trigger === null) return '';
  const lines = [
    `trigger: ${run.trigger.source} “${printable(run.trigger.title)}” started ${run.trigger.startedAt} (event ${printable(run.trigger.eventId)})`,
    `incident: ${printable(run.trigger.incidentKey)}`,
  ];
  if (run.window !== null) lines.push(`incident window (UTC): ${run.window.from} – ${run.window.to}`);
  lines.push(`attached incident events: ${events.length}`);
  for (const event of events) {
    lines.push(`  ${String(event.sequence).padStart(3)}  ${event.receivedAt}  ${printable(event.eventId)}`);
  }
  return lines.join('\n');
}
