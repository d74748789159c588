/**
 * What every item of the run's partitions shares: its key and format version, its `ttl`, the caps that keep it under
 * DynamoDB's 400 KB, and the one validation each item passes on its way in and out. The item kinds themselves live
 * beside this file, one module each (schema, keys, both directions).
 */
import * as v from 'valibot';
import { issuePaths, RunStoreError } from '../../errors.ts';
import { MAX_TOOL_CALL_ID_CHARS } from '../../run/ids.ts';

export const SCHEMA_VERSION = 1;
/** Caps that keep every item far under DynamoDB's 400 KB, whatever a tool or the model produced. */
export const ITEM_CAPS = Object.freeze({
  resultBytes: 256 * 1024,
  inputBytes: 16 * 1024,
  errorDetailChars: 1_000,
  reasoningChars: 32_000,
  /** A sealed pseudonym batch (base64): 400 entries of at most 256-character values fit with room to spare. */
  pseudonymBatchChars: 300 * 1024,
  /** Tool calls listed on one step item; a round that asked for more keeps the count in `tool_calls_total`. */
  stepToolCalls: 100,
  toolCallIdChars: MAX_TOOL_CALL_ID_CHARS,
  /**
   * The most the attributes set by a completion may hold, in bytes of their JSON. With a new run item's cap, a run
   * item stays far under DynamoDB's 400 KB item limit (whose own count differs slightly from JSON's), so a
   * completion that fits here never fails on size.
   */
  completionBytes: 300 * 1024,
  /** The most a new run item may hold (its query is limited far below this before a run starts). */
  newRunItemBytes: 64 * 1024,
});

/** One item of the table, as written and read: its key and its attributes. */
export type Item = Record<string, unknown> & { pk: string; sk: string };

/** The attributes every item of a run's partitions starts with. */
export const ITEM_BASE_ENTRIES = {
  pk: v.string(),
  sk: v.string(),
  entity: v.string(),
  schema_version: v.literal(SCHEMA_VERSION),
  ttl: v.pipe(v.number(), v.integer()),
};

/** An instant (epoch ms) as the items store it: ISO 8601 in UTC. */
export const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** The item's `ttl`: epoch seconds, `retentionDays` after `nowMs`. */
export function ttlFor(nowMs: number, retentionDays: number): number {
  return Math.floor(nowMs / 1_000) + retentionDays * 86_400;
}

/**
 * The item checked against its schema (both ways: before a write is sent, after a read): its output, or
 * `RunStoreError` `CORRUPT_ITEM` naming `what` and the first failing path, never the value found there.
 */
export function validatedItem<T extends v.GenericSchema>(schema: T, item: unknown, what: string): v.InferOutput<T> {
  const result = v.safeParse(schema, wellFormed(item));
  if (!result.success) {
    const [path] = issuePaths(result.issues, 1);
    throw new RunStoreError('CORRUPT_ITEM', `${what} item fails its schema at ${path}`);
  }
  return result.output;
}

/**
 * The value with every string made well-formed UTF-16. NOTE: a model can write lone surrogates (`"\ud800"` in JSON)
 * into its reasoning, a tool call id or the Draft; they have no UTF-8 form, and DynamoDB may refuse the whole write.
 * Each lone surrogate becomes U+FFFD; everything else is kept exactly.
 */
export function wellFormed(value: unknown): unknown {
  // NOTE: a value with nothing to mend (nearly every one) is returned as it is, not copied: every item read and every
  // audit item written passes here, and the copy was most of its cost.
  return needsMending(value) ? mended(value) : value;
}

function mended(value: unknown): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
  if (Array.isArray(value)) return value.map(mended);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [mended(key), mended(entry)]));
  }
  return value;
}

/**
 * Whether `mended` would give anything but the value itself: a lone surrogate in a string or a key, or an object that
 * is not a plain object or array (`mended` turns it into a plain one: a `Set` or a `Date` becomes `{}`, an object
 * without a prototype gets `Object.prototype`).
 */
function needsMending(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    // NOTE: `map` skips holes and keeps them; a sparse array or one with other own keys is mended as before.
    if (Object.keys(value).length !== value.length) return true;
    for (const entry of value) if (needsMending(entry)) return true;
    return Object.getPrototypeOf(value) !== Array.prototype;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return true;
  // NOTE: a symbol or a non-enumerable own key is one `Object.entries` leaves out: there are more own keys than keys.
  const keys = Object.keys(value);
  if (Reflect.ownKeys(value).length !== keys.length) return true;
  for (const key of keys) {
    if (!key.isWellFormed() || needsMending((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}
