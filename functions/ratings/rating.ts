import {
  type FeedbackInput,
  type FeedbackMasking,
  type FeedbackStore,
  type PastIncidentRetention,
  type RecordedFeedback,
  recordFeedback,
  type StoredRun,
} from '@diagnosis/core';

/**
 * What a responder's rating needs: where ratings are kept, the masking of their texts (the run's own, with its
 * pseudonym map), and the enterprise's past incidents, which a rating remembers or retracts. NOTE: `memory` is
 * required: a composition without it does not type-check, so no path (the API, Slack, `serve`, the command line) can
 * record a WRONG verdict that leaves the run's memory reaching later runs as CORRECT.
 */
export interface RatingDeps {
  feedback: FeedbackStore;
  masking: FeedbackMasking;
  memory: PastIncidentRetention;
  now?: () => number;
}

/** A verdict on an ended run by one caller: the IAM identity the route was given, or `slack:<team>:<user>`. */
interface RatingRequest {
  run: StoredRun;
  caller: string;
  input: FeedbackInput;
}

/**
 * The rating use case: `recordFeedback` (idempotent per caller, re-ratings kept, the texts masked with the run's
 * masking) with the memory always applied — CORRECT and PARTIALLY_CORRECT remember the run as a past incident of its
 * enterprise, WRONG and UNHELPFUL retract it for good (its answer says which: `memory`). The caller authorizes the run
 * first.
 */
export type Rating = (request: RatingRequest) => Promise<RecordedFeedback>;

export function createRating(deps: RatingDeps): Rating {
  return (request) => recordFeedback(request, deps);
}
