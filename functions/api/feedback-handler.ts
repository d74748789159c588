import type { Metrics } from '@aws-lambda-powertools/metrics';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  DiagnosisInputError,
  FEEDBACK_LIMITS,
  feedbackView,
  parseFeedbackInput,
  type RunFeedback,
  type RunStore,
} from '@diagnosis/core';
import { json } from '../lambda/http-api-event.ts';
import { ENTERPRISE_DIMENSION, FEEDBACK_METRIC, VERDICT_DIMENSION } from '../lambda/metric-names.ts';
import { readJsonBody } from '../lambda/read-json-body.ts';
import type { Rating } from '../ratings/rating.ts';
import { type RunRouteOptions, runRoute } from './run-route.ts';

export type FeedbackRouteOptions = RunRouteOptions & Pick<{ metrics: Metrics }, 'metrics'>;

/**
 * `POST /runs/{runId}/feedback`: the IAM gate, the run this caller may see (another tenant's answers like a missing
 * one, 404), then `{ verdict, rootCause?, note? }` rated (`Rating`, functions/ratings/) for the caller the authorizer
 * names (its `userArn`; a body never names the caller). 201 with the new entry; 200 with the caller's current entry
 * when it says the same (idempotent per caller); a different verdict is a re-rating (201, the history kept). The
 * stored rating then remembers the run as a past incident of its enterprise (CORRECT, PARTIALLY_CORRECT) or retracts
 * it for good (WRONG, UNHELPFUL). Each new entry counts once in the `RunFeedback` metric by enterprise and verdict.
 * The texts are stored masked with the run's own masking (503 `MASKING_UNAVAILABLE` when that cannot be done), and
 * the answer shows them masked.
 */
export function createFeedbackHandler(
  deps: { store: Pick<RunStore, 'getRun'>; rate: Rating },
  options: FeedbackRouteOptions,
) {
  return runRoute(deps.store, options, async (run, event, caller) => {
    const input = parseFeedbackInput(readJsonBody(event, FEEDBACK_LIMITS.bodyBytes));
    if (typeof caller.userArn !== 'string') {
      throw new DiagnosisInputError('CALLER_UNKNOWN', 'the caller has no IAM user or role ARN');
    }
    const { created, entry } = await deps.rate({ run, caller: caller.userArn, input });
    if (created) recordFeedbackMetric(options.metrics, entry);
    const [view] = feedbackView([entry]);
    return json(created ? 201 : 200, { runId: run.runId, created, feedback: view });
  });
}

/** One count of a new rating, by the run's enterprise and the verdict (a metric of its own, published at once). */
function recordFeedbackMetric(metrics: Metrics, entry: RunFeedback): void {
  const single = metrics.singleMetric();
  single.addDimension(ENTERPRISE_DIMENSION, entry.enterpriseId);
  single.addDimension(VERDICT_DIMENSION, entry.verdict);
  single.addMetric(FEEDBACK_METRIC, MetricUnit.Count, 1);
}
