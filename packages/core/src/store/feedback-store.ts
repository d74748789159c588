/**
 * A responder's verdict on a run, and the port that keeps them. NOTE: feedback is never evidence: nothing in the
 * diagnosis path (the agent's input, the previous turn, the judge's prompt) reads it; only the read route, the command
 * line and `diagnosis eval capture` (on purpose) do.
 */

export const FEEDBACK_VERDICTS = Object.freeze(['CORRECT', 'PARTIALLY_CORRECT', 'WRONG', 'UNHELPFUL'] as const);
export type FeedbackVerdict = (typeof FEEDBACK_VERDICTS)[number];

/** The bounds of feedback: each text, a caller's re-ratings of one run, and the entries one run keeps. */
export const FEEDBACK_LIMITS = Object.freeze({
  rootCauseChars: 1_000,
  noteChars: 2_000,
  /** Each text as stored, masked: a pseudonym or a marker can be longer than what it replaced. */
  maskedRootCauseChars: 4_000,
  maskedNoteChars: 8_000,
  /** The request body of `POST /runs/{runId}/feedback`, in UTF-8 bytes. */
  bodyBytes: 8 * 1024,
  callerChars: 2_048,
  /** Ratings one caller may give one run (the first and its re-ratings). */
  ratingsPerCaller: 20,
  /** First ratings one run takes, i.e. callers (each with up to `ratingsPerCaller` entries). */
  entriesPerRun: 100,
  /** Every entry a run can hold, which `listFeedback` reads whole (`GET /runs/{id}` lists them all). */
  storedPerRun: 100 * 20,
});

/** What a responder says of a run (as stored: masked with its run's masking, see `maskFeedback`). */
export interface FeedbackInput {
  verdict: FeedbackVerdict;
  /** The cause as the responder found it (for a WRONG run: what it should have concluded). */
  rootCause: string | null;
  note: string | null;
}

/** One stored rating: a caller's verdict at one time. A re-rating is a new entry; the history is kept. */
export interface RunFeedback extends FeedbackInput {
  runId: string;
  enterpriseId: string;
  /** The IAM identity that gave it (the authorizer's `userArn`), never a field of the request body. */
  caller: string;
  /** A stable key of `caller` (a hash), so keys stay short and free of the separator. */
  callerKey: string;
  /** 1 for a caller's first rating of the run, 2 for its first re-rating, … */
  sequence: number;
  createdAt: string;
}

/**
 * Port: the feedback of runs, beside them in the same table (its own partition per run). Puts are conditional: an
 * entry is never overwritten, so concurrent ratings of one caller cannot replace each other.
 */
export interface FeedbackStore {
  /** Every entry of the run (at most `FEEDBACK_LIMITS.entriesPerRun` + the caller's own), oldest sequence first per caller. */
  listFeedback(runId: string): Promise<RunFeedback[]>;
  /** The entries of one caller for the run, by sequence. */
  listCallerFeedback(runId: string, callerKey: string): Promise<RunFeedback[]>;
  /** Puts a new entry; false when an entry with its caller and sequence already exists. */
  putFeedback(entry: RunFeedback, runCreatedAt: string): Promise<boolean>;
}
