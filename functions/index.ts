/**
 * `@diagnosis/functions`: the Lambda functions of the service. The deployed entries are the top-level files
 * (`diagnose.ts`, `start-diagnosis.ts`, …), each a thin module SST bundles on its own; this index is what the other
 * packages use of them, by name:
 * - the composition root of the Diagnose function for local callers (`createLocalDiagnose`: the command line, the
 *   batch runner and the eval run the deployed chain, typed, without casts);
 * - the handlers the command line's local runtime drives with Lambda-shaped events (triggers, webhooks, changes, the
 *   workflow's status-change events);
 * - the function's observability (Powertools logger and metrics) with a log destination of the caller's choice;
 * - the rating use case (`composeRating`), which `diagnosis feedback` records ratings with, as the API and Slack do.
 * The workflow definitions are the subpath `@diagnosis/functions/workflows`; what the infrastructure code reads
 * (metric names, the delivery settings) is `@diagnosis/functions/infrastructure`.
 */

export { type ChangeEventDeps, createChangeEventHandler } from './changes/change-event-handler.ts';
export { parseChangeSecrets } from './changes/change-secrets.ts';
export { type ChangeWebhookDeps, createChangeWebhookHandler } from './changes/change-webhook-handler.ts';
export {
  createDynamoDeliveryStore,
  type DeliveryRecord,
  type DeliveryStatus,
  type DeliveryStore,
} from './delivery/delivery-store.ts';
export { type DestinationConfig, parseStageDelivery } from './delivery/destinations.ts';
export { type DeliveryPreview, previewDeliveries } from './delivery/preview-deliveries.ts';
export { type RevealOutcome, revealForDestination } from './delivery/reveal-run-result.ts';
export { buildRunFinishedEvent, type RunFinishedEvent } from './delivery/run-finished-event.ts';
export {
  composeDiagnoseFunction,
  type DiagnoseFunctionOptions,
} from './diagnose/diagnose-function.ts';
export {
  createWorkflowEventsHandler,
  type WorkflowEventOutcome,
  type WorkflowEventsOptions,
} from './diagnose/workflow-events.ts';
export { createObservability, type LogDestination, type Observability } from './lambda/observability.ts';
export {
  type ApiFunctionName,
  type ApiHandler,
  composeLocalApi,
  type LocalApiOptions,
} from './local/local-api.ts';
export {
  createLocalDiagnose,
  type DiagnoseTaskPayload,
  type LocalDiagnose,
  type LocalDiagnoseOptions,
} from './local/local-diagnose.ts';
export { composeLocalSlack, type LocalSlack, type LocalSlackOptions } from './local/local-slack.ts';
export { composeRating } from './ratings/rating-setup.ts';
export { advanceCard, type CardOutcome } from './slack/advance-card.ts';
export { createDynamoCardStore } from './slack/dynamo-card-store.ts';
export { createMemoryCardStore } from './slack/memory-card-store.ts';
export { createRatingModalOpener } from './slack/rating-modal.ts';
export { createSlackApi } from './slack/slack-api.ts';
export {
  type ConversationDeps,
  type ConversationOutcome,
  handleSlackWork,
  slackRunId,
} from './slack/slack-conversation.ts';
export { parseSlackFunctionSettings } from './slack/slack-function-settings.ts';
export { createSlackRequestHandler, type SlackRequestDeps } from './slack/slack-request-handler.ts';
export { resolveSlackApps, type SlackAppConfig } from './slack/slack-settings.ts';
export { parseSlackWork, type SlackWork } from './slack/slack-work.ts';
export { signSlackRequest } from './slack/verify-slack-request.ts';
export { parseMappingSecrets } from './triggers/mapping-credentials.ts';
export { createTriggerHandler } from './triggers/trigger-handler.ts';
export type { TriggerAnswer, TriggerDeps } from './triggers/trigger-service.ts';
export { buildTriggerDeps } from './triggers/trigger-setup.ts';
export {
  createWebhookHandler,
  type WebhookAnswer,
  type WebhookDeps,
  type WebhookSecrets,
} from './triggers/webhook-handler.ts';
