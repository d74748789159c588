import { RunStoreError } from '../errors.ts';
import { PSEUDONYM_SORT_KEY_PATTERN } from './items/pseudonym-item.ts';
import { LEGACY_REASONING_SORT_KEY_PATTERN } from './items/reasoning-item.ts';
import { RUN_SORT_KEY_PATTERN } from './items/run-item.ts';
import { STEP_SORT_KEY_PATTERN } from './items/step-item.ts';
import { TOOL_SORT_KEY_PATTERNS } from './items/tool-item.ts';

/** Every sort key the run store and audit writer write (and the legacy reasoning keys), each from its item's module. */
export const SORT_KEY_PATTERN = new RegExp(
  `^(${[
    RUN_SORT_KEY_PATTERN,
    STEP_SORT_KEY_PATTERN,
    LEGACY_REASONING_SORT_KEY_PATTERN,
    PSEUDONYM_SORT_KEY_PATTERN,
    ...TOOL_SORT_KEY_PATTERNS,
  ]
    .map((pattern) => pattern.source)
    .join('|')})$`,
);

/** The opaque page cursor of a partition: its last key. */
export function encodeCursor(key: { pk: string; sk: string }): string {
  return Buffer.from(JSON.stringify({ pk: key.pk, sk: key.sk })).toString('base64url');
}

/**
 * The key a caller's cursor stands for. NOTE: only ever a key this store could have written, of the same partition:
 * anything else (another run's partition, an empty or oversized sort key DynamoDB itself would refuse) is refused
 * with `CORRUPT_ITEM` rather than queried.
 */
export function decodeCursor(cursor: string, pk: string): { pk: string; sk: string } {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (key.pk === pk && typeof key.sk === 'string' && SORT_KEY_PATTERN.test(key.sk) && Object.keys(key).length === 2) {
      return { pk, sk: key.sk };
    }
  } catch {
    // fall through
  }
  throw new RunStoreError('CORRUPT_ITEM', 'invalid cursor');
}
