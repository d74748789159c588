import type { MaskingMode } from '../config/masking-mode.ts';
import { DiagnosisInputError } from '../errors.ts';
import { FEEDBACK_LIMITS, type FeedbackInput } from '../store/feedback-store.ts';
import { isPublishedDiagnosis, type RunStore, type StoredPseudonymBatch, type StoredRun } from '../store/run-store.ts';
import type { CustomRules } from '../tools/masking/custom-patterns.ts';
import { createMaskingSession } from '../tools/masking/masking-session.ts';
import { chunkNewPseudonyms, openPseudonymBatches, sealPseudonymBatch } from '../tools/masking/pseudonym-map.ts';
import type { RememberedTexts } from './remember-past-incident.ts';

/** How feedback is masked: the deployment's masking, and the run's pseudonym map it reads and adds to. */
export interface FeedbackMasking {
  /**
   * The deployment's masking secret, from which each run's keys derive; null when none is configured (a deployed
   * function without `MaskingKey`): then every rating is refused (`MASKING_UNAVAILABLE`), never stored unmasked.
   */
  secret: string | null;
  /** The masking of a run that recorded none (it never ran): the deployment's `MASKING`. */
  mode: MaskingMode;
  /** The deployment's `MASKING_PATTERNS` and `MASKING_EXCLUSIONS`, as the runs were masked with. */
  rules?: CustomRules;
  /** The run's pseudonym map: read, so the run's own pseudonyms are kept, and added to with the feedback's new ones. */
  pseudonyms: Pick<RunStore, 'listPseudonyms' | 'appendPseudonyms'>;
}

/** A rating masked with its run's masking, and what its new pseudonyms need written before it is stored. */
export interface MaskedFeedback {
  input: FeedbackInput;
  /** The run's texts a memory of it would keep, masked with the same masking (`applyRatingToMemory` stores them). */
  memory: RememberedTexts;
  /** Adds the rating's new pseudonyms to the run's map (nothing when it has none); call before storing the rating. */
  savePseudonyms: () => Promise<void>;
}

/**
 * The most batches of a run's map read: the run's own (5,000 entries are 13 batches) and at most one per rating that
 * brought a new value (100 callers × 20 ratings). NOTE: a map read only in part fails closed — a sequence already
 * taken is refused by the conditional put, and after the retries the rating is FEEDBACK_CONFLICT.
 */
const MAX_MAP_BATCHES = 13 + FEEDBACK_LIMITS.entriesPerRun * FEEDBACK_LIMITS.ratingsPerCaller;
/** How many times a batch is put again when another writer took its sequence meanwhile. */
const MAX_APPEND_ATTEMPTS = 5;

const unavailable = () =>
  new DiagnosisInputError('MASKING_UNAVAILABLE', 'the feedback cannot be masked for this run; nothing was stored');

/**
 * A responder's rating masked like everything else of its run: secrets always redacted (irreversible
 * markers), identifiers — when the run ran with `identifiers` — replaced by the run's own pseudonyms, the ones its
 * observations got (the run's map is opened and taken in first, so a value the run saw keeps its pseudonym), and new
 * ones added to the run's map, so `GET /runs/{id}/reveal` shows them to those who may see customer data. NOTE: fails
 * closed with `MASKING_UNAVAILABLE` when there is no secret or the run's map does not open with it (another secret):
 * a rating is never stored unmasked, nor with pseudonyms the map could not resolve.
 */
export async function maskFeedback(
  run: StoredRun,
  input: FeedbackInput,
  masking: FeedbackMasking,
): Promise<MaskedFeedback> {
  if (masking.secret === null) throw unavailable();
  const { secret } = masking;
  const mode = run.masking ?? masking.mode;
  const session = createMaskingSession(
    { mode, secret, ...(masking.rules === undefined ? {} : { rules: masking.rules }) },
    run.runId,
  );
  let batches: StoredPseudonymBatch[] = [];
  if (mode === 'identifiers') {
    batches = await readMap(masking.pseudonyms, run.runId);
    try {
      session.restoreEntries(openPseudonymBatches(secret, run.runId, batches));
    } catch {
      throw unavailable();
    }
  }
  const masked: FeedbackInput = {
    verdict: input.verdict,
    rootCause: input.rootCause === null ? null : session.maskText(input.rootCause),
    note: input.note === null ? null : session.maskText(input.note),
  };
  // NOTE: the run's own texts too: the question is sent as written, so the model may echo a value the caller typed
  // into the conclusion (or a tool's service), and a memory keeps them for months and hands them to later runs.
  const conclusion = isPublishedDiagnosis(run) ? run.publishedResult.draft.conclusion : null;
  const memory: RememberedTexts = {
    conclusion: conclusion === null ? null : session.maskText(conclusion),
    services: (run.services ?? []).map((service) => session.maskText(service)),
  };
  const tooLong = [
    ...((masked.rootCause?.length ?? 0) > FEEDBACK_LIMITS.maskedRootCauseChars ? ['rootCause'] : []),
    ...((masked.note?.length ?? 0) > FEEDBACK_LIMITS.maskedNoteChars ? ['note'] : []),
  ];
  if (tooLong.length > 0) {
    throw new DiagnosisInputError('INVALID_FEEDBACK', `fields at fault: ${tooLong.join(', ')} (too long once masked)`);
  }
  const savePseudonyms = async () => {
    let last = batches.reduce((highest, batch) => Math.max(highest, batch.sequence), 0);
    for (const chunk of chunkNewPseudonyms(session)) {
      let stored = false;
      for (let attempt = 0; attempt < MAX_APPEND_ATTEMPTS && !stored; attempt += 1) {
        if (attempt > 0)
          last = (await readMap(masking.pseudonyms, run.runId)).reduce((h, b) => Math.max(h, b.sequence), last);
        last += 1;
        // NOTE: sealed for the sequence it is put at (the seal binds it), so anew on each attempt.
        stored = await masking.pseudonyms.appendPseudonyms(
          sealPseudonymBatch(session, run, last, chunk),
          run.createdAt,
        );
      }
      if (!stored) throw new DiagnosisInputError('FEEDBACK_CONFLICT', 'the rating changed meanwhile; try again');
    }
  };
  return { input: masked, memory, savePseudonyms };
}

async function readMap(store: Pick<RunStore, 'listPseudonyms'>, runId: string): Promise<StoredPseudonymBatch[]> {
  const batches: StoredPseudonymBatch[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.listPseudonyms(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    batches.push(...page.records);
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined && batches.length < MAX_MAP_BATCHES);
  return batches;
}
