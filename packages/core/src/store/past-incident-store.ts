import { PAST_INCIDENT_RATINGS, type PastIncidentRating } from '../tools/evidence-adapter.ts';

/**
 * Past incidents: what responders confirmed of earlier runs, kept per enterprise as leads for later runs. NOTE: a
 * past incident is never evidence about today: the agent meets it through `lookup_knowledge` as a hit marked
 * `source: "past_incident"`, the EvidenceGuard removes a FINDING that rests on such hits alone, and the SemanticGuard's
 * judge is told that they support nothing about the run it judges.
 */

/** The ratings that make a published diagnosis a past incident; a later WRONG or UNHELPFUL retracts it. */
export const REMEMBERED_VERDICTS = PAST_INCIDENT_RATINGS;
export type RememberedVerdict = PastIncidentRating;

/** Why a past incident is gone (or never came): a rating that disowned the run, or an authorised caller's delete. */
export const RETRACTION_REASONS = Object.freeze(['RATED_WRONG', 'RATED_UNHELPFUL', 'FORGOTTEN'] as const);
export type RetractionReason = (typeof RETRACTION_REASONS)[number];

/** The bounds of past incidents: each text as stored, what one retrieval reads, and what a listing page holds. */
export const PAST_INCIDENT_LIMITS = Object.freeze({
  /** The run's published conclusion as remembered (masked with the run's masking before it is stored). */
  conclusionChars: 600,
  /** The responder's stated cause as remembered (masked by the feedback path before it gets here). */
  rootCauseChars: 600,
  /** The services the run queried, each lower-cased. */
  services: 5,
  serviceChars: 100,
  /** The newest past incidents one retrieval reads (one Query page of the enterprise's partition). */
  recentWindow: 50,
  /** A listing page (`GET /memory`, `diagnosis memory list`). */
  pageSize: 50,
  /** Default retention in days (the stage's `PAST_INCIDENT_RETENTION_DAYS`). */
  retentionDays: 180,
});

/** One past incident: a run's published diagnosis as a responder rated it, masked, bounded and tagged. */
export interface PastIncident {
  enterpriseId: string;
  runId: string;
  /** When the run it remembers was created (UTC ISO): when the incident was diagnosed. */
  occurredAt: string;
  /** The services the run queried (`query_logs`), lower-cased, at most five; empty when it queried none. */
  services: string[];
  /** What the run concluded (its published conclusion, masked with the run's masking). */
  conclusion: string;
  /** What the responder said the cause was, when they said it (masked like every rating). */
  rootCause: string | null;
  rating: RememberedVerdict;
  /** When the rating that made (or last changed) this memory was given. */
  ratedAt: string;
  /** When it stops being retrieved (epoch ms): `ratedAt` + the retention; DynamoDB's TTL deletes it later. */
  expiresAt: number;
}

/**
 * Told of a stored memory a read skipped because it could not be read (it fails its schema, or is not of its
 * partition): the error's class and code only, never the item or its text.
 */
export type UnreadablePastIncident = (errorClass: string, code: string) => void;

/** How a page of an enterprise's past incidents is asked for. */
export interface PastIncidentPageOptions {
  cursor?: string;
  limit?: number;
  /** The reading instant (epoch ms): an expired memory is never returned, whether or not TTL deleted it yet. */
  now: number;
  onUnreadable?: UnreadablePastIncident;
}

/**
 * Port: an enterprise's past incidents, beside the runs in the same table. NOTE: every method takes the enterprise
 * first and every key starts with it, so no read of one enterprise can meet another's item; callers pass the run's
 * or the authorised caller's enterprise, never a value from a body or a model. A retraction is final: once a run's
 * memory is retracted (or was disowned before it existed), `remember` refuses it.
 */
export interface PastIncidentStore {
  /** Puts or replaces the run's memory; false when the run's memory was retracted before (nothing written). */
  remember(incident: PastIncident): Promise<boolean>;
  /**
   * Retracts the run's memory for good (a tombstone stays, so a later rating cannot bring it back); true when a
   * memory existed and was removed. NOTE: a `FORGOTTEN` retraction of a run the enterprise never remembered writes
   * nothing: its run id is the caller's word, and a tombstone per made-up id would let a caller with the grant fill
   * the partition for two years. A rating's retraction (its run was read first) leaves a tombstone even then.
   */
  retract(enterpriseId: string, runId: string, reason: RetractionReason, at: string): Promise<boolean>;
  /**
   * The enterprise's newest unexpired past incidents, newest first: at most `limit` (≤ `recentWindow`) read. NOTE: an
   * unreadable item among them is skipped and told to `onUnreadable` (so is one on a listing page): one bad item must
   * not take the enterprise's other memories away.
   */
  recent(
    enterpriseId: string,
    options: { limit: number; now: number; signal?: AbortSignal; onUnreadable?: UnreadablePastIncident },
  ): Promise<PastIncident[]>;
  /** A page of the enterprise's unexpired past incidents, newest first, and the cursor of the next page. */
  list(
    enterpriseId: string,
    options: PastIncidentPageOptions,
  ): Promise<{ incidents: PastIncident[]; cursor: string | null }>;
  /** The run's memory, when the enterprise has one for it and it has not expired. */
  get(enterpriseId: string, runId: string, now: number): Promise<PastIncident | null>;
}

/**
 * A past incident's own citable id, its hit's `doc_id`: an analysis item cites it to rest on that memory, apart from
 * the runbook hits the same lookup returned (whose tool call id stands for them).
 */
export function pastIncidentCitationId(runId: string): string {
  return `past-incident:${runId}`;
}
