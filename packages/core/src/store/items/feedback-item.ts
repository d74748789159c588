import * as v from 'valibot';
import { RunStoreError } from '../../errors.ts';
import { FEEDBACK_LIMITS, FEEDBACK_VERDICTS, type RunFeedback } from '../feedback-store.ts';
import { type Item, SCHEMA_VERSION, ttlFor } from './item.ts';

/**
 * The partition of a run's feedback. NOTE: its own partition key (not the run's), so IAM can let the feedback function
 * write there and nowhere else (`dynamodb:LeadingKeys`): it can read a run, never change one.
 */
export const feedbackPartitionKey = (runId: string) => `FEEDBACK#${runId}`;
export const callerSortKeyPrefix = (callerKey: string) => `CALLER#${callerKey}#`;
export const feedbackSortKey = (callerKey: string, sequence: number) =>
  `${callerSortKeyPrefix(callerKey)}${String(sequence).padStart(3, '0')}`;

const text = (max: number) => v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(max)));
const feedbackItemSchema = v.object({
  pk: v.string(),
  sk: v.pipe(v.string(), v.regex(/^CALLER#[A-Za-z0-9_-]{1,64}#\d{3}$/)),
  entity: v.literal('run_feedback'),
  schema_version: v.literal(SCHEMA_VERSION),
  ttl: v.pipe(v.number(), v.integer()),
  run_id: v.string(),
  enterprise_id: v.string(),
  caller: v.pipe(v.string(), v.minLength(1), v.maxLength(FEEDBACK_LIMITS.callerChars)),
  caller_key: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/)),
  sequence: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(FEEDBACK_LIMITS.ratingsPerCaller)),
  verdict: v.picklist(FEEDBACK_VERDICTS),
  root_cause: text(FEEDBACK_LIMITS.maskedRootCauseChars),
  note: text(FEEDBACK_LIMITS.maskedNoteChars),
  created_at: v.string(),
});

/** The item of one entry; it expires with its run (the run's creation plus the retention). */
export function feedbackItem(entry: RunFeedback, runCreatedAt: string, retentionDays: number): Item {
  const item = {
    pk: feedbackPartitionKey(entry.runId),
    sk: feedbackSortKey(entry.callerKey, entry.sequence),
    entity: 'run_feedback',
    schema_version: SCHEMA_VERSION,
    ttl: ttlFor(Date.parse(runCreatedAt), retentionDays),
    run_id: entry.runId,
    enterprise_id: entry.enterpriseId,
    caller: entry.caller,
    caller_key: entry.callerKey,
    sequence: entry.sequence,
    verdict: entry.verdict,
    root_cause: entry.rootCause,
    note: entry.note,
    created_at: entry.createdAt,
  };
  if (!v.is(feedbackItemSchema, item)) throw new RunStoreError('CORRUPT_ITEM', 'feedback item fails its schema');
  return item;
}

export function feedbackOf(item: Record<string, unknown>): RunFeedback {
  const result = v.safeParse(feedbackItemSchema, item);
  if (!result.success) throw new RunStoreError('CORRUPT_ITEM', 'feedback item fails its schema');
  const stored = result.output;
  return {
    runId: stored.run_id,
    enterpriseId: stored.enterprise_id,
    caller: stored.caller,
    callerKey: stored.caller_key,
    sequence: stored.sequence,
    verdict: stored.verdict,
    rootCause: stored.root_cause,
    note: stored.note,
    createdAt: stored.created_at,
  };
}
