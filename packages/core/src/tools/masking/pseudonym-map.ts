import * as v from 'valibot';
import type { MaskingSession } from './masking-session.ts';
import { deriveRunMaskingKeys, openMap, type SealedMap, sealMap } from './pseudonym-keys.ts';
import type { PseudonymEntry } from './reveal-text.ts';

/**
 * New pseudonyms of a run and their real values, sealed (AES-256-GCM with the run's map key, the run id and the
 * sequence bound as additional data): the store keeps them under the run's pseudonym partition and never reads inside.
 */
export interface PseudonymBatchEvent {
  sessionId: string;
  runId: string;
  /** 1-based, in the order the run created them. */
  sequence: number;
  /** Entries in the batch. */
  count: number;
  sealed: SealedMap;
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
  return chunkNewPseudonyms(session).map((chunk) => sealPseudonymBatch(session, identity, nextSequence(), chunk));
}

/** What the session created since the last call, in chunks of at most {@link PSEUDONYM_BATCH_ENTRIES}, unsealed. */
export function chunkNewPseudonyms(session: MaskingSession): PseudonymEntry[][] {
  const entries = session.takeNewEntries();
  const chunks: PseudonymEntry[][] = [];
  for (let start = 0; start < entries.length; start += PSEUDONYM_BATCH_ENTRIES) {
    chunks.push(entries.slice(start, start + PSEUDONYM_BATCH_ENTRIES));
  }
  return chunks;
}

/**
 * One batch sealed for its place in the run's map. NOTE: the sequence is bound into the seal: a writer that learns
 * its sequence only when it writes (a rating's batch after the run's) seals again for each sequence it tries.
 */
export function sealPseudonymBatch(
  session: Pick<MaskingSession, 'mapKey'>,
  identity: { runId: string; sessionId: string },
  sequence: number,
  entries: readonly PseudonymEntry[],
): PseudonymBatchEvent {
  return {
    runId: identity.runId,
    sessionId: identity.sessionId,
    sequence,
    count: entries.length,
    sealed: sealMap(session.mapKey, JSON.stringify(entries), { runId: identity.runId, sequence }),
  };
}

/**
 * The entries of a run's stored batches, opened with the run's map key (derived from the deployment's masking secret
 * and the runId), each under its run id and sequence. Throws when a batch was sealed with another key, for another
 * run or sequence, or altered.
 */
export function openPseudonymBatches(
  secret: string,
  runId: string,
  batches: readonly Pick<PseudonymBatchEvent, 'sealed' | 'sequence'>[],
): PseudonymEntry[] {
  const { mapKey } = deriveRunMaskingKeys(secret, runId);
  // NOTE: built per call, not at module level: a mutant of it is then tested by the tests that open batches, not by
  // reloading every masking test (docs/development.md, Mutation testing).
  const entriesSchema = v.array(v.strictObject({ token: v.string(), kind: v.string(), value: v.string() }));
  return batches.flatMap(
    (batch) =>
      v.parse(
        entriesSchema,
        JSON.parse(openMap(mapKey, batch.sealed, { runId, sequence: batch.sequence })),
      ) as PseudonymEntry[],
  );
}
