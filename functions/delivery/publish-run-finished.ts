/**
 * Emits `Diagnosis Run Finished` from the table's stream (NEW_AND_OLD_IMAGES): once for every run item whose status
 * goes from QUEUED or RUNNING to an ended one. NOTE: that transition is the one thing every way a run ends shares —
 * the Diagnose invocation's `completeRun` (after its audit is flushed), a QUEUED run's cancel (`requestCancel`), a
 * workflow failure's `closeQueuedRun`, the sweeper's `closeAbandonedRun` — so no closing path can forget to emit,
 * and a replayed completion (a conditional write that changes nothing) emits nothing. The stream retries a batch
 * whose events could not all be put (partial batch response), so emission is at least once; subscribers dedupe by
 * `detail.runId`.
 */

import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { ProcessScorecard } from '@diagnosis/core';
import { type StatusWord, statusWordOf } from '@diagnosis/core/status-words';
import { type EndedRunStatus, isEnded, RUN_STATUSES, type RunStatus, runOf } from '@diagnosis/core/store';
import type { DynamoDBRecord } from 'aws-lambda';
import { buildRunFinishedEvent, type RunFinishedOptions } from './run-finished-event.ts';

/** EventBridge's `PutEvents` takes at most 10 entries a call. */
const PUT_EVENTS_BATCH = 10;
/** …and at most 256 KB a call, the entries' sizes summed (each entry at most that too). */
const PUT_EVENTS_BYTES = 256 * 1024;

/**
 * An entry's size as EventBridge counts it for `PutEvents`' limit: its `Time` (14 bytes when set), and the UTF-8 bytes
 * of `Source`, `DetailType`, `Detail` and each of `Resources` (docs: "Calculating PutEvents event entry size").
 */
export function putEventsEntrySize(entry: PutEventsRequestEntry): number {
  const bytes = (text: string | undefined) => (text === undefined ? 0 : Buffer.byteLength(text, 'utf8'));
  return (
    (entry.Time === undefined ? 0 : 14) +
    bytes(entry.Source) +
    bytes(entry.DetailType) +
    bytes(entry.Detail) +
    (entry.Resources ?? []).reduce((total, resource) => total + bytes(resource), 0)
  );
}

/**
 * The entries in `PutEvents` calls, in order: at most 10 a call and 256 KB summed. NOTE: ten results of 40 KB (a long
 * query and a full Draft) are one call EventBridge refuses whole, on every retry, until the stream gives up; an entry
 * over 256 KB on its own can never be put, and is returned apart.
 */
export function putEventsBatches<T extends { entry: PutEventsRequestEntry }>(
  items: readonly T[],
): { batches: T[][]; tooLarge: T[] } {
  const batches: T[][] = [];
  const tooLarge: T[] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemSize = putEventsEntrySize(item.entry);
    if (itemSize > PUT_EVENTS_BYTES) {
      tooLarge.push(item);
      continue;
    }
    if (current.length === PUT_EVENTS_BATCH || size + itemSize > PUT_EVENTS_BYTES) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += itemSize;
  }
  if (current.length > 0) batches.push(current);
  return { batches, tooLarge };
}

export interface PublishDeps {
  events: Pick<EventBridgeClient, 'send'>;
  busName: string;
  event?: RunFinishedOptions;
}

export interface PublishReport {
  /** Lambda's partial batch response: the records to be retried, by sequence number. */
  batchItemFailures: { itemIdentifier: string }[];
  published: number;
  /** Stream records of ended runs whose item could not be read (a stable code each; nothing to retry). */
  skipped: { sequenceNumber: string; code: 'CORRUPT_ITEM' | 'EVENT_TOO_LARGE' }[];
  /**
   * Every ended run of the batch with its stored process scorecard: the stream is the one place every end passes (see
   * above), so the runs' process metrics are emitted here, each once its event is put (a retried record counts then).
   */
  scored: { sequenceNumber: string; outcome: StatusWord; scorecard: ProcessScorecard }[];
}

type Image = Record<string, AttributeValue>;

const statusOf = (image: Image | undefined): RunStatus | null => {
  const status = image?.status?.S;
  return status !== undefined && (RUN_STATUSES as readonly string[]).includes(status) ? (status as RunStatus) : null;
};

/** The record is a run item's transition from QUEUED/RUNNING into an ended status. */
export function isRunFinishing(record: DynamoDBRecord): boolean {
  if (record.eventName !== 'MODIFY') return false;
  const keys = record.dynamodb?.Keys as Image | undefined;
  if (keys?.sk?.S !== 'RUN' || keys.pk?.S?.startsWith('RUN#') !== true) return false;
  const before = statusOf(record.dynamodb?.OldImage as Image | undefined);
  const after = statusOf(record.dynamodb?.NewImage as Image | undefined);
  return before !== null && !isEnded(before) && after !== null && isEnded(after);
}

export async function publishRunFinished(
  records: readonly DynamoDBRecord[],
  deps: PublishDeps,
): Promise<PublishReport> {
  const report: PublishReport = { batchItemFailures: [], published: 0, skipped: [], scored: [] };
  const pending: { sequenceNumber: string; entry: PutEventsRequestEntry }[] = [];
  for (const record of records) {
    if (!isRunFinishing(record)) continue;
    const sequenceNumber = record.dynamodb?.SequenceNumber ?? '';
    let run: ReturnType<typeof runOf>;
    try {
      run = runOf(unmarshall(record.dynamodb?.NewImage as Image));
    } catch {
      report.skipped.push({ sequenceNumber, code: 'CORRUPT_ITEM' });
      continue;
    }
    const event = buildRunFinishedEvent({ ...run, status: run.status as EndedRunStatus }, deps.event);
    if (run.processScorecard) {
      report.scored.push({ sequenceNumber, outcome: statusWordOf(run.status), scorecard: run.processScorecard });
    }
    pending.push({
      sequenceNumber,
      entry: {
        EventBusName: deps.busName,
        Source: event.source,
        DetailType: event.detailType,
        Detail: JSON.stringify(event.detail),
        Resources: [],
      },
    });
  }
  const { batches, tooLarge } = putEventsBatches(pending);
  for (const item of tooLarge) report.skipped.push({ sequenceNumber: item.sequenceNumber, code: 'EVENT_TOO_LARGE' });
  for (const batch of batches) {
    try {
      const result = await deps.events.send(new PutEventsCommand({ Entries: batch.map((item) => item.entry) }));
      batch.forEach((item, index) => {
        if (result.Entries?.[index]?.ErrorCode !== undefined || result.Entries?.[index]?.EventId === undefined) {
          report.batchItemFailures.push({ itemIdentifier: item.sequenceNumber });
        } else {
          report.published += 1;
        }
      });
    } catch {
      for (const item of batch) report.batchItemFailures.push({ itemIdentifier: item.sequenceNumber });
    }
  }
  return report;
}
