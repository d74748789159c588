/**
 * The run item (`RUN#<runId>` / `RUN`): one per run, written when the run is accepted and updated as it runs and ends
 * (see `completion-attributes.ts`). Its session index key (`gsi1`) is how a follow-up finds the run it continues.
 */
import * as v from 'valibot';
import { MASKING_MODES } from '../../config/masking-mode.ts';
import { diagnosisDraftSchema } from '../../draft/diagnosis-draft.ts';
import { RunStoreError } from '../../errors.ts';
import { MODEL_FAILURE_KINDS } from '../../run/model-failure.ts';
import { type ProcessScorecard, processScorecardSchema } from '../../run/process-scores.ts';
import { emptyRunUsage } from '../../run/run-context.ts';
import { DEFAULT_RUN_LIMITS } from '../../run/run-limits.ts';
import { boundTriggerTitle, TRIGGER_SOURCES, TRIGGER_TEXT_CAPS } from '../../run/run-trigger.ts';
import { STOP_REASONS } from '../../run/stop-reason.ts';
import { utf8Bytes } from '../../run/utf8.ts';
import { TOOL_NAMES } from '../../tools/evidence-adapter.ts';
import { RUN_STATUSES, type StartRunInput, type StoredRun } from '../run-store.ts';
import { ITEM_BASE_ENTRIES, ITEM_CAPS, type Item, iso, SCHEMA_VERSION, ttlFor, validatedItem } from './item.ts';

/** The run item's key; the run's steps and tool invocations share its partition. */
export const runKey = (runId: string) => ({ pk: `RUN#${runId}`, sk: 'RUN' });
/** The run item's sort key, as a cursor may name it. */
export const RUN_SORT_KEY_PATTERN = /RUN/;

/**
 * The session index key. NOTE: it names the enterprise too: a session id is the caller's choice, so two tenants may
 * use the same one, and a follow-up must only ever find runs of its own tenant.
 */
export const sessionKey = (enterpriseId: string, sessionId: string) => `TENANT#${enterpriseId}#SESSION#${sessionId}`;

/**
 * An object schema of numbers with exactly the keys of `template`. NOTE: the usage and limits schemas are built from
 * the keys of `emptyRunUsage()` and `DEFAULT_RUN_LIMITS`, never copied by hand, so a field added to `RunUsage` or
 * `RunLimits` is stored and read back without anyone remembering this file.
 */
function numberFieldsOf<T extends { [K in keyof T]: number }>(template: T) {
  const entries = Object.fromEntries(Object.keys(template).map((key) => [key, v.number()]));
  return v.object(entries as { -readonly [K in keyof T]-?: v.NumberSchema<undefined> });
}

/**
 * A run's `RunUsage`: exactly the counters of `emptyRunUsage()`. NOTE: `cachedInputTokens` and `estimatedTokenRounds`
 * came later; a run stored before them reads back with 0.
 */
export const runUsageSchema = v.object({
  ...numberFieldsOf(emptyRunUsage()).entries,
  cachedInputTokens: v.optional(v.number(), 0),
  estimatedTokenRounds: v.optional(v.number(), 0),
});
/**
 * A run's `RunLimits`: exactly the limits of `DEFAULT_RUN_LIMITS`. NOTE: `modelRequestTimeoutMs`,
 * `maxToolCallsPerRound` and `maxRejectedToolCalls` came later; a run stored before them reads back without them (it
 * had no such limits).
 */
export const runLimitsSchema = v.object({
  ...numberFieldsOf(DEFAULT_RUN_LIMITS).entries,
  modelRequestTimeoutMs: v.exactOptional(v.number()),
  maxToolCallsPerRound: v.exactOptional(v.number()),
  maxRejectedToolCalls: v.exactOptional(v.number()),
});

/** A run's services, as its completion stores them: at most five, each at most 100 characters. */
export const runServicesSchema = v.pipe(v.array(v.pipe(v.string(), v.minLength(1), v.maxLength(100))), v.maxLength(5));

const progressSchema = v.object({
  modelCalls: v.number(),
  toolCalls: v.number(),
  rejectedToolCalls: v.number(),
  totalTokens: v.number(),
  checks: v.array(
    v.object({
      toolCallId: v.string(),
      toolName: v.picklist(TOOL_NAMES),
      status: v.picklist(['READY', 'ERROR']),
      empty: v.boolean(),
      evaluation: v.nullable(v.picklist(['GAINED', 'NO_GAIN', 'PENDING'])),
    }),
  ),
});

const publishedSchema = v.object({
  draft: diagnosisDraftSchema,
  citations: v.array(v.object({ tool_call_id: v.string(), tool_name: v.picklist(TOOL_NAMES), empty: v.boolean() })),
});

/** A run's `ModelFailure`: a kind, a status number and identifiers only (never a text of the endpoint). */
export const modelFailureSchema = v.object({
  kind: v.picklist(MODEL_FAILURE_KINDS),
  http_status: v.nullable(v.pipe(v.number(), v.integer())),
  error_class: v.pipe(v.string(), v.regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/)),
  network_code: v.nullable(v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{1,63}$/))),
});

/** A triggered run's `RunTrigger`, every text bounded. */
const triggerSchema = v.object({
  source: v.picklist(TRIGGER_SOURCES),
  incident_key: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.incidentKey)),
  event_id: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.eventId)),
  title: v.pipe(v.string(), v.maxLength(TRIGGER_TEXT_CAPS.title)),
  started_at: v.string(),
});

/** A run's incident window as stored: two UTC instants. */
const windowSchema = v.object({ from: v.string(), to: v.string() });

export const runItemSchema = v.object({
  ...ITEM_BASE_ENTRIES,
  entity: v.literal('run'),
  run_id: v.string(),
  session_id: v.string(),
  enterprise_id: v.string(),
  kind: v.literal('DIAGNOSIS'),
  status: v.picklist(RUN_STATUSES),
  query: v.string(),
  cancel_requested_at: v.optional(v.nullable(v.string())),
  /** Absent on runs stored before it was recorded: those count as `false`. */
  continue_session: v.optional(v.boolean()),
  /** Absent on runs no trigger started (and on runs stored before triggers existed). */
  trigger: v.optional(v.nullable(triggerSchema)),
  /** Absent on runs without an incident window. */
  window: v.optional(v.nullable(windowSchema)),
  stop_reason: v.nullable(v.picklist(STOP_REASONS)),
  /** Absent on runs stored before it was recorded: those read back as null. */
  collection_stop_reason: v.optional(v.nullable(v.picklist(STOP_REASONS))),
  error_code: v.nullable(v.string()),
  /** Absent on runs stored before it was recorded: those read back as null. */
  model_failure: v.optional(v.nullable(modelFailureSchema)),
  usage: v.nullable(runUsageSchema),
  progress: v.nullable(progressSchema),
  draft: v.nullable(diagnosisDraftSchema),
  conclusion: v.nullable(v.string()),
  published_result: v.nullable(publishedSchema),
  report: v.optional(v.unknown()),
  limits: v.optional(v.nullable(runLimitsSchema)),
  deadline_at: v.optional(v.nullable(v.string())),
  /** The masking the run ran with; absent on runs stored before masking existed (they ran without). */
  masking: v.optional(v.nullable(v.picklist(MASKING_MODES))),
  /**
   * The workflow execution that owns the run (its ARN): set when the workflow is started for it (a QUEUED run) or by
   * the invocation that started it (a batch item). Absent on runs stored before it existed and on local runs.
   */
  execution_arn: v.optional(v.nullable(v.string())),
  /** The last sign of life of the invocation running it (ISO): set at the claim, on progress and every heartbeat. */
  heartbeat_at: v.optional(v.nullable(v.string())),
  /** Absent on runs stored before it was recorded, and on runs completed without one: those read back as null. */
  process_scorecard: v.optional(v.nullable(processScorecardSchema)),
  /** The services its logs checks asked (past incidents are tagged with them); absent on runs stored before it. */
  services: v.optional(runServicesSchema),
  created_at: v.string(),
  ended_at: v.nullable(v.string()),
  gsi1pk: v.string(),
  gsi1sk: v.string(),
});

/** A new run's item (QUEUED or RUNNING), validated and within its cap (`RUN_ITEM_TOO_LARGE`) before it is written. */
export function newRunItem(
  input: StartRunInput,
  nowMs: number,
  retentionDays: number,
  status: 'QUEUED' | 'RUNNING' = 'RUNNING',
  deadlineAt?: number,
  executionArn?: string,
): Item {
  const createdAt = iso(nowMs);
  const item = validatedItem(
    runItemSchema,
    {
      ...runKey(input.runId),
      entity: 'run',
      schema_version: SCHEMA_VERSION,
      ttl: ttlFor(nowMs, retentionDays),
      run_id: input.runId,
      session_id: input.sessionId,
      enterprise_id: input.enterpriseId,
      kind: 'DIAGNOSIS',
      status,
      query: input.query,
      continue_session: input.continueSession,
      ...(input.trigger === undefined
        ? {}
        : {
            trigger: {
              source: input.trigger.source,
              incident_key: input.trigger.incidentKey,
              event_id: input.trigger.eventId,
              title: boundTriggerTitle(input.trigger.title),
              started_at: input.trigger.startedAt,
            },
          }),
      ...(input.window === undefined ? {} : { window: { from: input.window.from, to: input.window.to } }),
      stop_reason: null,
      error_code: null,
      usage: null,
      progress: null,
      draft: null,
      conclusion: null,
      published_result: null,
      created_at: createdAt,
      ended_at: null,
      ...(deadlineAt === undefined ? {} : { deadline_at: iso(deadlineAt) }),
      ...(executionArn === undefined ? {} : { execution_arn: executionArn }),
      // NOTE: a run started RUNNING (a batch item, a direct invocation) shows its first sign of life at once.
      ...(status === 'RUNNING' ? { heartbeat_at: createdAt } : {}),
      gsi1pk: sessionKey(input.enterpriseId, input.sessionId),
      gsi1sk: `${createdAt}#${input.runId}`,
    },
    'run',
  ) as Item;
  if (utf8Bytes(JSON.stringify(item)) > ITEM_CAPS.newRunItemBytes) {
    throw new RunStoreError('RUN_ITEM_TOO_LARGE', 'the run request does not fit in its item');
  }
  return item;
}

/** Reads a run item back, validating it against its schema; what older runs lack reads back as null. */
export function runOf(item: Record<string, unknown>): StoredRun {
  const run = validatedItem(runItemSchema, item, 'run');
  return {
    entity: 'run',
    runId: run.run_id,
    sessionId: run.session_id,
    enterpriseId: run.enterprise_id,
    kind: run.kind,
    status: run.status,
    query: run.query,
    continueSession: run.continue_session ?? false,
    trigger:
      run.trigger === undefined || run.trigger === null
        ? null
        : {
            source: run.trigger.source,
            incidentKey: run.trigger.incident_key,
            eventId: run.trigger.event_id,
            title: run.trigger.title,
            startedAt: run.trigger.started_at,
          },
    window: run.window ?? null,
    stopReason: run.stop_reason,
    collectionStopReason: run.collection_stop_reason ?? null,
    errorCode: run.error_code,
    modelFailure:
      run.model_failure === undefined || run.model_failure === null
        ? null
        : {
            kind: run.model_failure.kind,
            httpStatus: run.model_failure.http_status,
            errorClass: run.model_failure.error_class,
            networkCode: run.model_failure.network_code,
          },
    usage: run.usage,
    progress: run.progress,
    draft: run.draft,
    conclusion: run.conclusion,
    publishedResult: run.published_result,
    report: run.report ?? null,
    cancelRequestedAt: run.cancel_requested_at ?? null,
    limits: run.limits ?? null,
    deadlineAt: run.deadline_at ?? null,
    masking: run.masking ?? null,
    executionArn: run.execution_arn ?? null,
    heartbeatAt: run.heartbeat_at ?? null,
    processScorecard: (run.process_scorecard ?? null) satisfies ProcessScorecard | null,
    services: run.services ?? [],
    createdAt: run.created_at,
    endedAt: run.ended_at,
  };
}
