import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { DiagnosisInputError, issuePaths } from '../errors.ts';
import { hasUnsafeCharacter } from '../run/unsafe-characters.ts';
import {
  FEEDBACK_LIMITS,
  FEEDBACK_VERDICTS,
  type FeedbackInput,
  type FeedbackStore,
  type RunFeedback,
} from '../store/feedback-store.ts';
import { isEnded, type StoredRun } from '../store/run-store.ts';
import { type FeedbackMasking, maskFeedback } from './mask-feedback.ts';
import { applyRatingToMemory, type PastIncidentChange, type PastIncidentRetention } from './remember-past-incident.ts';

const feedbackText = (max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(max),
    v.check((text) => text.trim().length > 0, 'not blank'),
    // NOTE: a feedback text is shown on terminals, pages and chat, so it may hold no control or bidirectional character
    // (refused, never silently changed).
    v.check((text) => text.isWellFormed() && !hasUnsafeCharacter(text), 'no control or bidirectional characters'),
  );

const feedbackBodySchema = v.strictObject({
  verdict: v.picklist(FEEDBACK_VERDICTS),
  rootCause: v.optional(feedbackText(FEEDBACK_LIMITS.rootCauseChars)),
  note: v.optional(feedbackText(FEEDBACK_LIMITS.noteChars)),
});

/**
 * The body of `POST /runs/{runId}/feedback` (and the command line's options): `{ verdict, rootCause?, note? }`,
 * nothing else (no caller, no run id: those come from the authorizer and the path). Refused with
 * `INVALID_FEEDBACK` naming the fields at fault, never echoing a value.
 */
export function parseFeedbackInput(body: unknown): FeedbackInput {
  const result = v.safeParse(feedbackBodySchema, body);
  if (!result.success) {
    throw new DiagnosisInputError('INVALID_FEEDBACK', `fields at fault: ${issuePaths(result.issues, 5).join(', ')}`);
  }
  return {
    verdict: result.output.verdict,
    rootCause: result.output.rootCause ?? null,
    note: result.output.note ?? null,
  };
}

/** The stable key of an IAM identity: its SHA-256, base64url (43 characters), so a key never holds `#`. */
export function callerKeyOf(caller: string): string {
  return createHash('sha256').update(caller, 'utf8').digest('base64url');
}

export interface RecordFeedbackDeps {
  feedback: FeedbackStore;
  /** How the rating is masked before anything compares or stores it (the run's own masking; see `maskFeedback`). */
  masking: FeedbackMasking;
  now?: () => number;
  /**
   * The enterprise's past incidents: the stored rating (new or the caller's same one again) remembers or retracts the
   * run's memory (`applyRatingToMemory`). Absent: ratings change no memory.
   */
  memory?: PastIncidentRetention;
}

/**
 * A recorded rating: whether it is new (`created: false` for the caller's same rating again), the stored entry, and
 * what it did to the run's memory (`applyRatingToMemory`; null when the deps hold no memory), so a caller can say it.
 */
export interface RecordedFeedback {
  created: boolean;
  entry: RunFeedback;
  memory: PastIncidentChange | null;
}

/** How many times a rating is tried again when another rating of the same caller took its place meanwhile. */
const MAX_PUT_ATTEMPTS = 3;

/**
 * Records a caller's verdict on an ended run, idempotently per caller: the same verdict, root cause and note as the
 * caller's current rating is that rating (`created: false`, nothing written); a different one is a re-rating, a new
 * entry after the others (the history is kept). Bounded: a caller rates a run at most
 * `FEEDBACK_LIMITS.ratingsPerCaller` times, and a run takes at most `entriesPerRun` first ratings. The caller is the
 * IAM identity the route was given by its authorizer, never a field of the body. Authorize the run before calling.
 * NOTE: the texts are masked with the run's masking first (`maskFeedback`): what is compared, stored and returned is
 * the masked rating, and its new pseudonyms join the run's map before the rating is stored.
 */
export async function recordFeedback(
  request: { run: StoredRun; caller: string; input: FeedbackInput },
  deps: RecordFeedbackDeps,
): Promise<RecordedFeedback> {
  const { run, caller } = request;
  if (!isEnded(run.status)) throw new DiagnosisInputError('RUN_NOT_ENDED', 'only an ended run can be rated');
  if (caller.length === 0 || caller.length > FEEDBACK_LIMITS.callerChars || !caller.isWellFormed()) {
    throw new DiagnosisInputError('CALLER_UNKNOWN', 'the caller has no usable IAM identity');
  }
  const { input, memory: texts, savePseudonyms } = await maskFeedback(run, request.input, deps.masking);
  const callerKey = callerKeyOf(caller);
  const now = deps.now ?? Date.now;
  // NOTE: also for the caller's same rating again: a retry after a failed memory write completes it (both idempotent).
  const remembered = async (result: { created: boolean; entry: RunFeedback }): Promise<RecordedFeedback> => {
    const memory = deps.memory === undefined ? null : await applyRatingToMemory(run, result.entry, deps.memory, texts);
    return { ...result, memory };
  };
  for (let attempt = 0; attempt < MAX_PUT_ATTEMPTS; attempt += 1) {
    const history = await deps.feedback.listCallerFeedback(run.runId, callerKey);
    const current = history.at(-1);
    if (current !== undefined && sameRating(current, input)) return remembered({ created: false, entry: current });
    if (history.length >= FEEDBACK_LIMITS.ratingsPerCaller) {
      throw new DiagnosisInputError('FEEDBACK_LIMIT', 'this caller has rated this run as often as it may');
    }
    if (current === undefined) {
      // NOTE: first ratings, i.e. callers: re-ratings count against their caller's own bound, never against others'.
      const callers = new Set((await deps.feedback.listFeedback(run.runId)).map((rating) => rating.callerKey));
      if (callers.size >= FEEDBACK_LIMITS.entriesPerRun) {
        throw new DiagnosisInputError('FEEDBACK_LIMIT', 'this run has as many ratings as it may keep');
      }
    }
    const entry: RunFeedback = {
      runId: run.runId,
      enterpriseId: run.enterpriseId,
      caller,
      callerKey,
      sequence: (current?.sequence ?? 0) + 1,
      ...input,
      createdAt: new Date(now()).toISOString(),
    };
    await savePseudonyms();
    if (await deps.feedback.putFeedback(entry, run.createdAt)) return remembered({ created: true, entry });
  }
  throw new DiagnosisInputError('FEEDBACK_CONFLICT', 'the rating changed meanwhile; try again');
}

function sameRating(entry: FeedbackInput, input: FeedbackInput): boolean {
  return entry.verdict === input.verdict && entry.rootCause === input.rootCause && entry.note === input.note;
}

/** A run's feedback as readers see it: every entry, each caller's newest marked `current`. */
export function feedbackView(entries: readonly RunFeedback[]) {
  const newest = new Map<string, number>();
  for (const entry of entries) newest.set(entry.callerKey, Math.max(newest.get(entry.callerKey) ?? 0, entry.sequence));
  return entries.map((entry) => ({
    verdict: entry.verdict,
    rootCause: entry.rootCause,
    note: entry.note,
    caller: entry.caller,
    sequence: entry.sequence,
    current: newest.get(entry.callerKey) === entry.sequence,
    createdAt: entry.createdAt,
  }));
}
