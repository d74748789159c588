/** Writes that failed after the SDK's own retries; the items already written are intact. */
export class AuditWriteError extends Error {
  override readonly name = 'AuditWriteError';
  readonly failedItems: readonly { key: string; reason: string }[];

  constructor(failedItems: { key: string; reason: string }[]) {
    super(`${failedItems.length} audit write(s) failed: ${failedItems.map((item) => item.key).join(', ')}`);
    this.failedItems = failedItems;
  }
}

export type RunStoreErrorCode = 'RUN_NOT_FOUND' | 'RUN_NOT_RUNNING' | 'CORRUPT_ITEM' | 'RUN_ITEM_TOO_LARGE';

/** A refused store operation (a double completion, an unknown run, an item that fails its schema). */
export class RunStoreError extends Error {
  override readonly name = 'RunStoreError';
  readonly code: RunStoreErrorCode;

  constructor(code: RunStoreErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
