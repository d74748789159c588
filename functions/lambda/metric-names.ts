import type { ReleaseStatus } from '@diagnosis/core';

/**
 * The names of what the functions emit, in one place: `observability.ts` emits with them and the deploy's alarms and
 * dashboard (`deploy/alarms.ts`) read them, so an alarm cannot watch a metric nobody writes. Plain constants, no
 * imports at run time: the SST config loads this file at deploy time.
 */
export const SERVICE_NAME = 'diagnosis-agent';
export const METRICS_NAMESPACE = 'Diagnosis';

/** NOTE: Powertools Metrics names the dimension of `serviceName` `service` (every metric carries it). */
export const SERVICE_DIMENSION = 'service';
/** The run's release status, the only dimension a run's metrics add. */
export const OUTCOME_DIMENSION = 'outcome';

/** Every value of the outcome dimension: a run ends as exactly one of them. */
export const RUN_OUTCOMES = Object.freeze([
  'PUBLISHED',
  'FALLBACK',
  'FAILED',
  'CANCELLED',
] as const satisfies readonly ReleaseStatus[]);
// NOTE: fails to compile when the core gains a release status this list does not name (the FAILED rate would then
// divide by a total that misses it).
const everyOutcomeListed: [Exclude<ReleaseStatus, (typeof RUN_OUTCOMES)[number]>] extends [never] ? true : false = true;
void everyOutcomeListed;

/** The metrics of one finished run (see `recordRunMetrics`). */
export const RUN_METRICS = Object.freeze({
  runs: 'Runs',
  modelCalls: 'ModelCalls',
  toolCalls: 'ToolCalls',
  toolCallsReady: 'ToolCallsReady',
  toolCallsError: 'ToolCallsError',
  toolCallsRejected: 'ToolCallsRejected',
  inputTokens: 'InputTokens',
  outputTokens: 'OutputTokens',
  cachedInputTokens: 'CachedInputTokens',
  runDuration: 'RunDuration',
} as const);

/** The metrics of one sweep (see `diagnose/sweep-handler.ts`). */
export const SWEEP_METRICS = Object.freeze({
  checked: 'SweepRunsChecked',
  abandonedRunsClosed: 'AbandonedRunsClosed',
  errors: 'SweepErrors',
} as const);

/** A start refused by admission control (TENANT_BUSY: the enterprise has its maximum of open runs). */
export const START_METRICS = Object.freeze({
  rejectedStarts: 'RejectedStarts',
} as const);

/**
 * The metrics of the Trigger functions, one set per event: `TriggerEvents` with the `outcome` dimension (STARTED,
 * ATTACHED, IGNORED, DUPLICATE — a webhook event received already —, FAILED); `TriggerUnmapped` counts alarms and
 * webhooks no mapping takes (they start nothing); `TriggerFailures` counts events that could not be handled (the run
 * could not be started or the table failed), which the deploy's alarm watches.
 */
export const TRIGGER_METRICS = Object.freeze({
  events: 'TriggerEvents',
  unmapped: 'TriggerUnmapped',
  failures: 'TriggerFailures',
  webhookRefused: 'TriggerWebhookRefused',
} as const);

/** The Slack app's functions (docs/chat.md): requests refused, ignored, accepted; work done; card updates. */
export const SLACK_METRICS = Object.freeze({
  refused: 'SlackRequestsRefused',
  ignored: 'SlackRequestsIgnored',
  accepted: 'SlackRequestsAccepted',
  workFailed: 'SlackWorkFailed',
  cardUpdates: 'SlackCardUpdates',
  rateLimited: 'SlackRateLimited',
  /** A card step put back on the queue (a 429, a failure, the channel's pace, the card busy, too little time). */
  cardDeferred: 'SlackCardDeferred',
  /** A card step given up (Slack refused it for good, or it failed `MAX_CARD_ATTEMPTS` times). */
  cardAbandoned: 'SlackCardAbandoned',
} as const);

/** The change functions' metrics (docs/changes.md, "Operations"): per event, by `outcome`; refused webhooks. */
export const CHANGE_METRICS = Object.freeze({
  events: 'ChangeEvents',
  webhookRefused: 'ChangeWebhookRefused',
  failures: 'ChangeFailures',
} as const);

/** The outcomes of a change event (the `outcome` dimension of `ChangeEvents`). */
export const CHANGE_OUTCOMES = Object.freeze(['RECORDED', 'DUPLICATE', 'IGNORED', 'FAILED'] as const);

export const TRIGGER_OUTCOMES = Object.freeze(['STARTED', 'ATTACHED', 'IGNORED', 'DUPLICATE', 'FAILED'] as const);

/**
 * The process metrics of one finished run, from its stored process scorecard (`recordProcessMetrics`), with the same
 * outcome dimension as `RUN_METRICS`. docs/learning-from-runs.md defines each figure.
 */
export const PROCESS_METRICS = Object.freeze({
  redundantToolCalls: 'RedundantToolCalls',
  unproductiveToolCalls: 'UnproductiveToolCalls',
  noGainToolCalls: 'NoGainToolCalls',
  answeredWithoutTools: 'AnsweredWithoutTools',
  guardRemovedItems: 'GuardRemovedItems',
  modelTime: 'ModelTime',
  toolTime: 'ToolTime',
} as const);

/** A responder's verdict on a run: one count per new rating, by enterprise and verdict (`recordFeedbackMetric`). */
export const FEEDBACK_METRIC = 'RunFeedback';
/** The dimensions of `FEEDBACK_METRIC`: the run's enterprise and the verdict given. */
export const ENTERPRISE_DIMENSION = 'enterprise';
export const VERDICT_DIMENSION = 'verdict';
