import { AuditWriteError, safeErrorName } from '../errors.ts';
import type { AuditFlushReport } from '../store/audit-writer.ts';

/** At most this many failed writes are named in one log line. */
const MAX_NAMED_WRITES = 10;

/**
 * What a log line may say about why a run's audit failed (issue 32 item 13): the class of each error on the cause
 * chain and, for a failed table write, the kind of item (the first segment of its sort key: `STEP`, `TOOL`, `MAP`,
 * …) and the AWS error code (`ProvisionedThroughputExceededException`, `TimeoutError`, …). NOTE: never a key, a
 * value or a message: keys hold tool call ids the model chose, messages may echo items.
 */
export function auditFailureFields(error: unknown): Record<string, unknown> {
  const causes: string[] = [];
  let writes: { item: string; errorCode: string }[] | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth += 1) {
    causes.push(safeErrorName(current));
    if (current instanceof AuditWriteError) {
      writes = current.failedItems.slice(0, MAX_NAMED_WRITES).map(({ key, reason }) => ({
        item: itemKind(key),
        errorCode: safeErrorName({ name: reason }),
      }));
      break;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return {
    errorClass: causes.join(' < '),
    ...(writes === undefined ? {} : { failedWrites: writes }),
  };
}

/**
 * What a log line may say about the audit writes that landed only after more than one attempt: per write its item
 * kind, its attempts and the AWS error codes of the failed tries (at most ten writes). NOTE: the trace a transient
 * failure leaves when it is retried away (issue 32 item 13): which write needed it and why, never a key or a value.
 */
export function retriedWriteFields(report: AuditFlushReport): Record<string, unknown> {
  return {
    retriedWrites: report.retriedWrites.slice(0, MAX_NAMED_WRITES).map(({ key, attempts, errorCodes }) => ({
      item: itemKind(key),
      attempts,
      errorCodes: errorCodes.map((code) => safeErrorName({ name: code })),
    })),
    retriedWriteCount: report.retriedWrites.length,
  };
}

function itemKind(key: string): string {
  const sortKey = key.slice(key.indexOf('|') + 1);
  const kind = sortKey.split('#', 1)[0] ?? '';
  return /^[A-Z_]{1,16}$/.test(kind) ? kind : '?';
}
