import type { PageOptions, StoredPseudonymBatch, StoredRun } from '../store/run-store.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';
import { openPseudonymBatches } from '../tools/masking/pseudonym-map.ts';
import { type PseudonymEntry, revealText } from '../tools/masking/reveal-text.ts';

/** The most batches of a previous run's map read for a follow-up (its map holds at most 5,000 entries: 13 batches). */
const MAX_PREVIOUS_BATCHES = 20;

type PseudonymReader = {
  listPseudonyms(
    runId: string,
    options?: PageOptions,
  ): Promise<{ records: StoredPseudonymBatch[]; cursor: string | null }>;
};

/**
 * The previous run's pseudonym map, read for its follow-up (the entries by token; empty when the run has no published
 * result, or its map can no longer be read: expired, or sealed with another secret). Only a read: it may go out
 * together with the run's other reads; {@link rekeyPreviousRun} then uses it.
 */
export async function readPreviousMap(
  run: StoredRun | null,
  store: PseudonymReader,
  secret: string,
): Promise<Map<string, PseudonymEntry>> {
  const entries = new Map<string, PseudonymEntry>();
  if (run === null || run.publishedResult === null) return entries;
  try {
    const batches: StoredPseudonymBatch[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listPseudonyms(run.runId, {
        limit: MAX_PREVIOUS_BATCHES,
        ...(cursor ? { cursor } : {}),
      });
      batches.push(...page.records);
      cursor = page.cursor ?? undefined;
    } while (cursor !== undefined && batches.length < MAX_PREVIOUS_BATCHES);
    for (const entry of openPseudonymBatches(secret, run.runId, batches)) entries.set(entry.token, entry);
  } catch {
    // NOTE: without the old map the old pseudonyms stay; they carry no value and this run cannot restore them.
  }
  return entries;
}

/**
 * The previous run as the follow-up's model may see it: its query and published Draft with the previous run's
 * pseudonyms replaced by this run's (restore the values from its map, {@link readPreviousMap}, mask them again with
 * this run's key), so the model never sees a real identifier across turns either, and a pseudonym it carries over is
 * one this run can restore. Pseudonyms the map does not hold stay as they are: this run refuses them as unknown.
 */
export function rekeyPreviousRun(
  run: StoredRun | null,
  entries: ReadonlyMap<string, PseudonymEntry>,
  masking: MaskingSession,
): StoredRun | null {
  if (run === null || run.publishedResult === null) return run;
  const rekey = (text: string) => masking.maskText(revealText(text, entries));
  const { draft } = run.publishedResult;
  const rekeyedDraft = {
    ...draft,
    conclusion: draft.conclusion === null ? null : rekey(draft.conclusion),
    analysis: draft.analysis.map((item) => ({ ...item, statement: rekey(item.statement) })),
    limitations: { ...draft.limitations, missing_info: draft.limitations.missing_info.map(rekey) },
  };
  return {
    ...run,
    query: rekey(run.query),
    publishedResult: { ...run.publishedResult, draft: rekeyedDraft },
  };
}
