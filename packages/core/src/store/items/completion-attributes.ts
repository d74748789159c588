/**
 * The two updates of a run item after it was written: a RUNNING run's live progress and a run's completion. Each set
 * of attributes is validated like an item before it is sent (plain JSON: no class instances, no undefined).
 */
import * as v from 'valibot';
import { MASKING_MODES } from '../../config/masking-mode.ts';
import { RunStoreError } from '../../errors.ts';
import { modelFailureReport } from '../../run/model-failure.ts';
import { processScorecardSchema } from '../../run/process-scores.ts';
import type { ProgressSnapshot } from '../../run/progress.ts';
import { utf8Bytes } from '../../run/utf8.ts';
import type { LiveProgress, RunOutcome } from '../run-store.ts';
import { ITEM_CAPS, iso, validatedItem } from './item.ts';
import { modelFailureSchema, runItemSchema, runLimitsSchema, runServicesSchema, runUsageSchema } from './run-item.ts';

/** The attributes a progress write sets on the run item. */
const liveProgressSchema = v.object({
  usage: runUsageSchema,
  progress: runItemSchema.entries.progress,
  deadline_at: v.optional(v.string()),
});

/** The attributes a completion sets on the run item. */
const completionSchema = v.object({
  status: v.picklist(['SUCCEEDED', 'FALLBACK', 'FAILED', 'CANCELLED']),
  stop_reason: runItemSchema.entries.stop_reason,
  collection_stop_reason: runItemSchema.entries.stop_reason,
  error_code: runItemSchema.entries.error_code,
  model_failure: v.nullable(modelFailureSchema),
  usage: runUsageSchema,
  progress: runItemSchema.entries.progress,
  draft: runItemSchema.entries.draft,
  conclusion: runItemSchema.entries.conclusion,
  published_result: runItemSchema.entries.published_result,
  report: v.unknown(),
  limits: v.nullable(runLimitsSchema),
  deadline_at: v.nullable(v.string()),
  masking: v.nullable(v.picklist(MASKING_MODES)),
  process_scorecard: v.nullable(processScorecardSchema),
  services: runServicesSchema,
  ended_at: v.string(),
});

/** The attributes `updateProgress` sets on a RUNNING run, validated like a completion's; a progress write is a heartbeat. */
export function progressAttributes(live: LiveProgress, nowMs: number): Record<string, unknown> {
  const attributes = JSON.parse(
    JSON.stringify({
      usage: live.usage,
      progress: plainProgress(live.progress),
      ...(live.deadlineAt === undefined ? {} : { deadline_at: iso(live.deadlineAt) }),
    }),
  );
  return { ...validatedItem(liveProgressSchema, attributes, 'run progress'), heartbeat_at: iso(nowMs) };
}

/** The attributes `completeRun` sets, validated before they are sent (plain JSON: no class instances, no undefined). */
export function completionAttributes(outcome: RunOutcome, nowMs: number): Record<string, unknown> {
  const attributes = JSON.parse(
    JSON.stringify({
      status: outcome.status,
      stop_reason: outcome.stopReason,
      collection_stop_reason: outcome.collectionStopReason ?? null,
      error_code: outcome.errorCode,
      model_failure:
        outcome.modelFailure === undefined || outcome.modelFailure === null
          ? null
          : modelFailureReport(outcome.modelFailure),
      usage: outcome.usage,
      progress: outcome.progress === null ? null : plainProgress(outcome.progress),
      draft: outcome.draft,
      conclusion: outcome.publishedResult?.draft.conclusion ?? null,
      published_result: outcome.publishedResult,
      report: outcome.report ?? null,
      limits: outcome.limits ?? null,
      deadline_at: outcome.deadlineAt === undefined || outcome.deadlineAt === null ? null : iso(outcome.deadlineAt),
      masking: outcome.masking ?? null,
      process_scorecard: outcome.processScorecard ?? null,
      services: outcome.services ?? [],
      ended_at: iso(nowMs),
    }),
  );
  const checked = validatedItem(completionSchema, attributes, 'run completion');
  if (utf8Bytes(JSON.stringify(checked)) > ITEM_CAPS.completionBytes) {
    throw new RunStoreError('RUN_ITEM_TOO_LARGE', 'the run completion does not fit in its item');
  }
  return checked;
}

function plainProgress(progress: ProgressSnapshot) {
  return { ...progress, checks: progress.checks.map((check) => ({ ...check })) };
}
