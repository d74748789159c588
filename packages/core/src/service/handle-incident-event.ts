import type { IncidentWindow } from '../run/incident-window.ts';
import { buildRunLimits } from '../run/run-limits.ts';
import { type IncidentEventKind, isFiringKind, type RunTrigger } from '../run/run-trigger.ts';
import type { ChangeStore } from '../store/change-store.ts';
import {
  type IncidentRef,
  type IncidentStore,
  incidentSessionId,
  type StoredIncident,
} from '../store/incident-store.ts';
import { isEnded, type StoredRun } from '../store/run-store.ts';
import { countLookbackChanges, withLookbackChangesHint } from './lookback-changes.ts';
import { type IncidentMasking, maskAttachedTitle, maskNewRunTexts } from './mask-incident-texts.ts';
import { type StartDiagnosisDeps, startDiagnosis } from './start-diagnosis.ts';

/** One event of an incident, as a trigger hands it over: mapped to its enterprise, its query and window built. */
export interface IncidentEvent {
  ref: IncidentRef;
  /** The sender's id of this event. */
  eventId: string;
  /** What the event says about the incident (see `INCIDENT_EVENT_KINDS`). */
  kind: IncidentEventKind;
  /**
   * `FIRING` only: when the earliest of the alerts firing in this notification began (epoch ms). A notification whose
   * every firing alert began after the incident's last event is a new episode even when no resolution was heard.
   */
  firingSince?: number;
  title: string;
  /** When the incident began (epoch ms). */
  startedAt: number;
  /** The run's query, written by the system from the source's template. */
  query: string;
  window: IncidentWindow;
}

export type IncidentOutcome =
  | { outcome: 'STARTED'; runId: string; sessionId: string; continued: boolean; run: StoredRun }
  | { outcome: 'ATTACHED'; runId: string; sequence: number }
  /** An acknowledgement, resolution or update of an incident this deployment never opened: nothing to record it on. */
  | { outcome: 'IGNORED'; code: 'NO_INCIDENT' };

export interface IncidentDeps {
  incidents: IncidentStore;
  /** What starts a run: core's `startDiagnosis` with these dependencies (the admission bound applies). */
  start: StartDiagnosisDeps;
  /** Later events within this long of the incident's last one attach; a re-fire after it starts a new run. */
  quietPeriodMs: number;
  now: () => number;
  newRunId: () => string;
  /** The sender's texts are masked with the run's key before anything stores or shows them (issue 32, item 10). */
  masking: IncidentMasking;
  /**
   * The enterprises' changes: a new run's question says how many landed in its lookback (a hint, never evidence).
   * Absent: the question says nothing of changes.
   */
  changes?: Pick<ChangeStore, 'list'>;
}

/** The error code of a run whose workflow could not be started (see `startDiagnosis`). */
const WORKFLOW_START_FAILED = 'WORKFLOW_START_FAILED';
/** How long a claimed incident may point at a run that does not exist yet before a new event takes it over. */
const CLAIM_GRACE_MS = 60_000;
/**
 * How far a sender's clock (Prometheus's `startsAt`) may run ahead of ours before an alert that began before the
 * incident's last event looks like it began after it. Alertmanager waits `group_wait` (30 s by default) before a
 * group's first notification, so a skew below that never mattered; this margin keeps a group that keeps firing from
 * looking new on its second notification.
 */
const MAX_SENDER_CLOCK_SKEW_MS = 60_000;
/** The kinds of event that may open an incident never seen before. */
const OPENING_KINDS: ReadonlySet<IncidentEventKind> = new Set(['TRIGGERED', 'REOPENED', 'FIRING']);
/** Rounds of read-then-conditional-write; each lost round means another invocation changed the incident. */
const MAX_ATTEMPTS = 5;

/** The claim moved under us on every attempt (a storm of writers); the caller may retry the event. */
export class IncidentContendedError extends Error {
  override readonly name = 'IncidentContendedError';
  readonly code = 'INCIDENT_CONTENDED';
}

/**
 * One run per incident. The first firing event of an incident claims it with a conditional write and starts a run at
 * once (through `startDiagnosis`, so the per-tenant admission bound applies); every later event — firing again,
 * acknowledged, resolved — is recorded on the incident's run as an incident event and starts nothing, except a re-fire:
 * an event that begins a new episode (`TRIGGERED`, `REOPENED`, or a `FIRING` notification after the incident resolved
 * or whose alerts all began after its last event) once the run ended and the incident has been quiet for
 * `quietPeriodMs`. A re-fire starts a new run in the same session with `continueSession`, so the previous diagnosis
 * is its previous turn. An incident that keeps firing never gets a second run, however long it fires. NOTE: every
 * decision is a conditional write on the incident item, so any number of concurrent invocations start exactly one
 * run.
 */
export async function handleIncidentEvent(event: IncidentEvent, deps: IncidentDeps): Promise<IncidentOutcome> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const at = deps.now();
    let incident: StoredIncident | null;
    if (OPENING_KINDS.has(event.kind)) {
      // NOTE: an event that says the incident fires tries the claim first: a new incident (the alarm's path) costs one
      // conditional write and no read; a refused claim answers with the incident as stored.
      const sessionId = incidentSessionId(event.ref);
      const runId = deps.newRunId();
      const claim = await deps.incidents.openIncident(event.ref, { runId, sessionId, at });
      if (claim.opened) return startRun(event, deps, { runId, sessionId, continued: false });
      incident = claim.incident ?? (await deps.incidents.getIncident(event.ref));
      // NOTE: gone again between the claim and the read (expired): the next attempt claims it.
      if (incident === null) continue;
    } else {
      // NOTE: an update, acknowledgement or resolution of an incident never opened here has nothing to be recorded on,
      // and nothing is written for it.
      incident = await deps.incidents.getIncident(event.ref);
      if (incident === null) return { outcome: 'IGNORED', code: 'NO_INCIDENT' };
    }
    if (isFiringKind(event.kind) && (await mayStartAnew(incident, event, at, deps))) {
      const runId = deps.newRunId();
      if (await deps.incidents.reopenIncident(incident, { runId, at })) {
        return startRun(event, deps, { runId, sessionId: incident.sessionId, continued: true }, incident);
      }
      continue;
    }
    const sequence = await deps.incidents.attachEvent(event.ref, incident.runId, {
      source: event.ref.source,
      kind: event.kind,
      eventId: event.eventId,
      title: maskAttachedTitle(event.title, incident.runId, deps.masking),
      at,
    });
    if (sequence !== null) return { outcome: 'ATTACHED', runId: incident.runId, sequence };
  }
  throw new IncidentContendedError('the incident changed on every attempt');
}

/**
 * Whether a firing event starts a new run: the event begins a new episode, the incident's run ended and the incident
 * has been quiet for the quiet period — or its run never got a workflow (`WORKFLOW_START_FAILED`): that incident was
 * never diagnosed, so the sender's retry starts it again.
 */
async function mayStartAnew(
  incident: StoredIncident,
  event: IncidentEvent,
  at: number,
  deps: IncidentDeps,
): Promise<boolean> {
  const run = await deps.start.store.getRun(incident.runId);
  // NOTE: a claim whose run is not there yet is another invocation between its claim and its start: attach, unless
  // that invocation died long ago without starting anything.
  if (run === null) return at - Date.parse(incident.openedAt) >= CLAIM_GRACE_MS;
  if (run.status === 'FAILED' && run.errorCode === WORKFLOW_START_FAILED) return true;
  return (
    isEnded(run.status) &&
    at - Date.parse(incident.lastEventAt) >= deps.quietPeriodMs &&
    beginsNewEpisode(event, incident)
  );
}

/**
 * Whether the event says the incident fires anew rather than still. NOTE: Alertmanager says neither: a group's
 * notification lists what fires now (and what resolved since the last one), and it drops an alert once a notification
 * said it resolved. So a group's notification begins a new episode only after the incident was heard to resolve, or
 * when every alert firing in it began after the incident's last event (its resolution was not heard), by more than the
 * clock skew allowed.
 */
function beginsNewEpisode(event: IncidentEvent, incident: StoredIncident): boolean {
  if (event.kind === 'TRIGGERED' || event.kind === 'REOPENED') return true;
  if (event.kind !== 'FIRING') return false;
  if (incident.resolvedAt !== null) return true;
  return (
    event.firingSince !== undefined && event.firingSince > Date.parse(incident.lastEventAt) + MAX_SENDER_CLOCK_SKEW_MS
  );
}

async function startRun(
  event: IncidentEvent,
  deps: IncidentDeps,
  claim: { runId: string; sessionId: string; continued: boolean },
  /** For a re-fire: the incident as it was before this claim, put back if the run is never stored. */
  previous?: StoredIncident,
): Promise<IncidentOutcome> {
  try {
    const query =
      deps.changes === undefined
        ? event.query
        : withLookbackChangesHint(
            event.query,
            await countLookbackChanges(deps.changes, event.ref.enterpriseId, {
              fromMs: Date.parse(event.window.from),
              toMs: event.startedAt,
            }),
            buildRunLimits(deps.start.limits).maxQueryBytes,
          );
    // NOTE: inside the try: a map that could not be written gives the claim back like any start that stored no run.
    const masked = await maskNewRunTexts(
      { query, title: event.title },
      { runId: claim.runId, sessionId: claim.sessionId, createdAt: new Date(deps.now()).toISOString() },
      deps.masking,
      deps.start.limits,
    );
    const trigger: RunTrigger = {
      source: event.ref.source,
      incidentKey: event.ref.incidentKey,
      eventId: event.eventId,
      title: masked.title,
      startedAt: new Date(event.startedAt).toISOString(),
    };
    const run = await startDiagnosis(
      {
        runId: claim.runId,
        sessionId: claim.sessionId,
        enterpriseId: event.ref.enterpriseId,
        query: masked.query,
        continueSession: claim.continued,
        window: event.window,
        trigger,
      },
      deps.start,
    );
    return { outcome: 'STARTED', ...claim, run };
  } catch (error) {
    // NOTE: a run that was never stored (refused before its item was written, e.g. the tenant's admission bound)
    // gives its claim back — a first run's claim is deleted, a re-fire's incident points at its last stored run again
    // — so the sender's retry can start it (or is refused again, honestly), never attached to a run that 404s; a
    // stored one keeps it (it ended FAILED, see startDiagnosis), and the incident's rules apply to it like to any
    // ended run.
    if ((await deps.start.store.getRun(claim.runId)) === null) {
      await deps.incidents.releaseIncident(event.ref, claim.runId, previous);
    }
    throw error;
  }
}
