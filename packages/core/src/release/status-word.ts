import type { RunStatus } from '../store/run-store.ts';

/**
 * The one word per outcome every reader sees: the API's run resource, the Diagnose function's answer, the command
 * line (text and `--json`), the trace, the page and the result event. A published diagnosis is PUBLISHED everywhere.
 * NOTE: the table itself keeps the value it has always stored for that outcome, `SUCCEEDED` (so no stored run is
 * rewritten and the store's conditional writes stay as they are); this is the one place it becomes the word.
 */
export const STATUS_WORDS = Object.freeze([
  'QUEUED',
  'RUNNING',
  'PUBLISHED',
  'FALLBACK',
  'FAILED',
  'CANCELLED',
] as const);
export type StatusWord = (typeof STATUS_WORDS)[number];

/** The word for a stored run status (`SUCCEEDED` → `PUBLISHED`; the others are their own word). */
export function statusWordOf(status: RunStatus): StatusWord {
  return status === 'SUCCEEDED' ? 'PUBLISHED' : status;
}

/** The word for a status read as text (a table row, a result): a value that is no status of ours stays as it is. */
export function statusWordOfText(status: string): string {
  return status === 'SUCCEEDED' ? 'PUBLISHED' : status;
}
