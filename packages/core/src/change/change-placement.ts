/**
 * Where a change landed against its run's incident, decided by code, never by the model: before the incident window
 * opened, inside it before the symptom began, or after the symptom began. A change that landed after the symptom began
 * cannot have caused it, and the EvidenceGuard removes a finding that blames only such changes
 * (`GUARD_CHANGE_AFTER_SYMPTOM`).
 */
export const CHANGE_PLACEMENTS = Object.freeze(['BEFORE_WINDOW', 'BEFORE_SYMPTOM', 'AFTER_SYMPTOM'] as const);
export type ChangePlacement = (typeof CHANGE_PLACEMENTS)[number];

/**
 * The incident a run's changes are placed against: when its window opened and when its symptom began (epoch ms). A
 * triggered run has one: the window's start and the incident's start as its sender reports it (the alarm's state
 * change, the earliest `startsAt`, PagerDuty's `created_at`) — never before the first symptom, since an alarm fires
 * after what it watches went wrong. A run without a trigger has none: its changes are not placed.
 */
export interface ChangeIncident {
  windowFromMs: number;
  symptomAtMs: number;
}

/** Where a change that landed at `atMs` stands; null when the run has no incident to place it against. */
export function placeChange(atMs: number, incident: ChangeIncident | null): ChangePlacement | null {
  if (incident === null) return null;
  if (atMs > incident.symptomAtMs) return 'AFTER_SYMPTOM';
  if (atMs < incident.windowFromMs) return 'BEFORE_WINDOW';
  return 'BEFORE_SYMPTOM';
}
