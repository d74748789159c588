import { truncateChars } from '../run/utf8.ts';
import type { RunFeedback } from '../store/feedback-store.ts';
import {
  PAST_INCIDENT_LIMITS,
  type PastIncident,
  type PastIncidentStore,
  REMEMBERED_VERDICTS,
  type RememberedVerdict,
} from '../store/past-incident-store.ts';
import { isPublishedDiagnosis, type StoredRun } from '../store/run-store.ts';

/** What a rating did to the run's memory. */
export type PastIncidentChange = 'REMEMBERED' | 'RETRACTED' | 'ALREADY_RETRACTED' | 'NOT_ELIGIBLE';

export interface PastIncidentRetention {
  incidents: Pick<PastIncidentStore, 'remember' | 'retract'>;
  /** Days a memory is kept after the rating that made it (the stage's `PAST_INCIDENT_RETENTION_DAYS`). */
  retentionDays: number;
}

/**
 * The run's own texts a memory of it keeps, masked with the run's masking before anything stores them
 * (`maskFeedback`): its published conclusion (null when it published none) and the services its logs checks asked.
 */
export interface RememberedTexts {
  conclusion: string | null;
  services: string[];
}

const isRemembered = (verdict: string): verdict is RememberedVerdict =>
  REMEMBERED_VERDICTS.some((remembered) => remembered === verdict);

/**
 * What a stored rating does to the run's memory. CORRECT or PARTIALLY_CORRECT on a run that published a conclusion
 * makes (or refreshes) its past incident: the conclusion as published and the responder's stated cause, both masked
 * (`texts` and the stored rating), bounded, tagged with the run id, its services, its time and the rating; WRONG or UNHELPFUL retracts
 * it for good (a tombstone, so a later rating cannot bring it back). NOTE: the enterprise is the run's, which the
 * route authorised for the caller; the rating is the stored one (`recordFeedback`'s entry), never the request body.
 */
export async function applyRatingToMemory(
  run: StoredRun,
  rating: RunFeedback,
  deps: PastIncidentRetention,
  texts: RememberedTexts,
): Promise<PastIncidentChange> {
  if (rating.runId !== run.runId || rating.enterpriseId !== run.enterpriseId) return 'NOT_ELIGIBLE';
  if (!isRemembered(rating.verdict)) {
    const reason = rating.verdict === 'WRONG' ? 'RATED_WRONG' : 'RATED_UNHELPFUL';
    const removed = await deps.incidents.retract(run.enterpriseId, run.runId, reason, rating.createdAt);
    return removed ? 'RETRACTED' : 'ALREADY_RETRACTED';
  }
  const conclusion = isPublishedDiagnosis(run) ? texts.conclusion : null;
  if (conclusion === null) return 'NOT_ELIGIBLE';
  const incident: PastIncident = {
    enterpriseId: run.enterpriseId,
    runId: run.runId,
    occurredAt: run.createdAt,
    services: texts.services.slice(0, PAST_INCIDENT_LIMITS.services),
    conclusion: oneLine(conclusion, PAST_INCIDENT_LIMITS.conclusionChars),
    rootCause: rating.rootCause === null ? null : oneLine(rating.rootCause, PAST_INCIDENT_LIMITS.rootCauseChars),
    rating: rating.verdict,
    ratedAt: rating.createdAt,
    expiresAt: Date.parse(rating.createdAt) + deps.retentionDays * 86_400_000,
  };
  return (await deps.incidents.remember(incident)) ? 'REMEMBERED' : 'ALREADY_RETRACTED';
}

/** A stored text as one bounded line: whitespace runs (line breaks included) as one space. */
function oneLine(text: string, max: number): string {
  return truncateChars(text.replace(/\s+/g, ' ').trim(), max) || '—';
}
