import { pastIncidentCitationId } from '../store/past-incident-store.ts';
import type { StoredToolInvocation } from '../store/run-store.ts';
import { isRecord } from '../tools/evidence-projection.ts';

/**
 * A past incident cited by its own id (`past-incident:<runId>`), as the record of the first lookup that returned it,
 * its observation holding that one hit (so its summary counts one past incident, a lead); undefined when no executed
 * lookup of the run returned it. NOTE: the record keeps the lookup's own id, which its evaluation is read under.
 */
export function pastIncidentRecord(
  id: string,
  records: ReadonlyMap<string, StoredToolInvocation>,
): StoredToolInvocation | undefined {
  for (const record of records.values()) {
    if (record.toolName !== 'lookup_knowledge' || record.disposition !== 'EXECUTED') continue;
    const observation = storedObservation(record.observation);
    const data = observation?.data;
    if (observation === null || !isRecord(data) || !Array.isArray(data.hits)) continue;
    const hit = data.hits.find(
      (candidate) =>
        isRecord(candidate) &&
        candidate.source === 'past_incident' &&
        typeof candidate.run_id === 'string' &&
        pastIncidentCitationId(candidate.run_id) === id,
    );
    if (hit !== undefined) return { ...record, observation: { ...observation, data: { hits: [hit] } } };
  }
  return undefined;
}

/** A stored observation as an object (it may be stored as its JSON text), or null. */
function storedObservation(observation: unknown): Record<string, unknown> | null {
  if (isRecord(observation)) return observation;
  if (typeof observation !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(observation);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}
