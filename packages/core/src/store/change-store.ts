import type { ChangeKind, ChangeRecord } from '../change/change-record.ts';

/** A change as read back: the record and its id (`chg_…`, see `changeIdOf`). */
export type StoredChange = ChangeRecord & { id: string };

/** The bounds of one read of an enterprise's changes. */
export const CHANGE_LIMITS = Object.freeze({
  /** The most items one read looks at (the newest of the range): what `matched` counts over at most. */
  scan: 500,
  /** The most changes one read returns (the newest that match). */
  rows: 50,
  /** Default retention in days (the stage's `CHANGE_RETENTION_DAYS`). */
  retentionDays: 30,
});

/** What a read of the change stream asks for: a range of landing times and optional filters, all applied exactly. */
export interface ChangeQuery {
  /** The range of landing times, epoch ms, both ends included. */
  fromMs: number;
  toMs: number;
  /** Only changes of this service (compared exactly). */
  service?: string;
  kind?: ChangeKind;
  /** Only changes whose ref, actor or summary contains this text (case-insensitive). */
  text?: string;
  /** The most changes returned, newest first (at most {@link CHANGE_LIMITS}`.rows`). */
  limit: number;
  signal?: AbortSignal;
}

/**
 * Port: an enterprise's changes, time-ordered, beside the runs in the same table. NOTE: every method takes the
 * enterprise first and every key starts with it, so no read of one enterprise can meet another's change; callers pass
 * the mapping's enterprise (recording) or the run's (reading), never a value of a body or a model.
 */
export interface ChangeStore {
  /**
   * Records a change once: `STORED`, or `DUPLICATE` when a change of the same source, origin and event id was recorded
   * before (nothing is written then: a sender's retry or redelivery is stored once). Kept `retentionDays` after it
   * landed (DynamoDB's TTL).
   */
  record(change: ChangeRecord): Promise<'STORED' | 'DUPLICATE'>;
  /**
   * The changes of the enterprise that landed in the range and pass the filters, newest first, and how many matched:
   * counted over the range's newest {@link CHANGE_LIMITS}`.scan` changes at most.
   */
  list(enterpriseId: string, query: ChangeQuery): Promise<{ matched: number; changes: StoredChange[] }>;
}

/** Whether a stored change passes a query's filters (its time range is the read's). */
export function changeMatches(change: StoredChange, query: Omit<ChangeQuery, 'fromMs' | 'toMs' | 'limit'>): boolean {
  if (query.service !== undefined && change.service !== query.service) return false;
  if (query.kind !== undefined && change.kind !== query.kind) return false;
  if (query.text === undefined) return true;
  const needle = query.text.toLowerCase();
  return [change.ref, change.actor, change.summary].some((text) => text?.toLowerCase().includes(needle) === true);
}
