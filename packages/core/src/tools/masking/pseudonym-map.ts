import * as v from 'valibot';
import type { MaskingSession, PseudonymEntry } from './masking-session.ts';
import { deriveRunMaskingKeys, openMap, sealMap } from './pseudonym-keys.ts';

/**
 * New pseudonyms of a run and their real values, sealed (AES-256-GCM with the run's map key): the store keeps them
 * under the run's pseudonym partition and never reads inside.
 */
export interface PseudonymBatchEvent {
  sessionId: string;
  runId: string;
  /** 1-based, in the order the run created them. */
  sequence: number;
  /** Entries in the batch. */
  count: number;
  sealed: { iv: string; tag: string; ciphertext: string };
}

/** Entries per stored batch: with values of at most 256 characters, a batch stays far under DynamoDB's 400 KB. */
export const PSEUDONYM_BATCH_ENTRIES = 400;

/**
 * Seals what the session created since the last call into batches for the store (none when nothing is new).
 * `nextSequence` is the run's counter of batches, owned by the caller.
 */
export function sealNewPseudonyms(
  session: MaskingSession,
  identity: { runId: string; sessionId: string },
  nextSequence: () => number,
): PseudonymBatchEvent[] {
  const entries = session.takeNewEntries();
  const batches: PseudonymBatchEvent[] = [];
  for (let start = 0; start < entries.length; start += PSEUDONYM_BATCH_ENTRIES) {
    const chunk = entries.slice(start, start + PSEUDONYM_BATCH_ENTRIES);
    batches.push({
      runId: identity.runId,
      sessionId: identity.sessionId,
      sequence: nextSequence(),
      count: chunk.length,
      sealed: sealMap(session.mapKey, JSON.stringify(chunk)),
    });
  }
  return batches;
}

const entriesSchema = v.array(
  v.strictObject({
    token: v.string(),
    kind: v.string(),
    value: v.string(),
  }),
);

/**
 * The entries of a run's stored batches, opened with the run's map key (derived from the deployment's masking secret
 * and the runId). Throws when a batch was sealed with another key or altered.
 */
export function openPseudonymBatches(
  secret: string,
  runId: string,
  batches: readonly Pick<PseudonymBatchEvent, 'sealed'>[],
): PseudonymEntry[] {
  const { mapKey } = deriveRunMaskingKeys(secret, runId);
  return batches.flatMap(
    (batch) => v.parse(entriesSchema, JSON.parse(openMap(mapKey, batch.sealed))) as PseudonymEntry[],
  );
}
