import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { ChangeSourceMapping, DiagnosisWorkflow, FeedbackMasking } from '@diagnosis/core';
import type { TenantAccessPolicy, TriggerSettings } from '@diagnosis/core/config';
import {
  createDynamoChangeStore,
  createDynamoFeedbackStore,
  createDynamoIncidentStore,
  createDynamoPastIncidentStore,
  createDynamoRunStore,
  type RunStore,
} from '@diagnosis/core/store';
import type { Context } from 'aws-lambda';
import { createCancelRunHandler } from '../api/cancel-handler.ts';
import { createFeedbackHandler } from '../api/feedback-handler.ts';
import { createPastIncidentsHandler } from '../api/past-incidents-handler.ts';
import {
  createGetRunAuditHandler,
  createGetRunHandler,
  createGetRunReasoningHandler,
  createGetRunRevealHandler,
} from '../api/run-queries.ts';
import { createStartDiagnosisHandler } from '../api/start-handler.ts';
import { createChangeWebhookHandler } from '../changes/change-webhook-handler.ts';
import { createDynamoDeliveryStore } from '../delivery/delivery-store.ts';
import { createObservability, type LogDestination } from '../lambda/observability.ts';
import { composeRating } from '../ratings/rating-setup.ts';
import { buildTriggerDeps } from '../triggers/trigger-setup.ts';
import { createWebhookHandler } from '../triggers/webhook-handler.ts';

/** The functions behind the InternalApi's and the IngressApi's routes, by their names in sst.config.ts. */
export type ApiFunctionName =
  | 'StartDiagnosis'
  | 'GetRun'
  | 'GetRunAudit'
  | 'GetRunReasoning'
  | 'GetRunReveal'
  | 'CancelRun'
  | 'RunFeedback'
  | 'PastIncidents'
  | 'TriggerWebhook'
  | 'ChangeWebhook';

/** A route's handler as Lambda invokes it: an API Gateway HTTP API (v2) event and a context. */
export type ApiHandler = (event: unknown, context: Context) => Promise<unknown>;

export interface LocalApiOptions {
  /** One DynamoDB client for every store (the caller destroys it). */
  dynamo: DynamoDBClient;
  tableName: string;
  /** TENANT_ACCESS as every deployed route reads it (null: every caller, every enterprise). */
  policy: TenantAccessPolicy;
  /** TENANT_MAX_OPEN_RUNS: the admission bound of POST /diagnoses and of triggered runs. */
  maxOpenRuns: number;
  /** The workflow runs start in: the DiagnosisWorkflow's local stand-in (its `stop` is the cancel route's). */
  workflow: DiagnosisWorkflow;
  /** The webhook route's settings (mappings, quiet period, secrets: an unset secret refuses its source). */
  trigger: TriggerSettings;
  /**
   * The values of the mappings' own webhook secrets by name (`parseMappingSecrets`), as TriggerWebhook reads them from
   * its linked SST secrets at cold start; a mapping whose secret is absent refuses its requests.
   */
  mappingSecrets?: ReadonlyMap<string, readonly string[]>;
  /**
   * The change webhook's sources (the stage file's `changes.sources`), the values of their secrets by name (as
   * ChangeWebhook reads them from its linked SST secrets; a source whose secret is absent refuses its requests) and
   * CHANGE_RETENTION_DAYS.
   */
  changes?: {
    sources: readonly ChangeSourceMapping[];
    secrets: ReadonlyMap<string, readonly string[]>;
    retentionDays: number;
  };
  /** The masking a rating gets (the runs' own: mode, patterns, secret). */
  feedbackMasking: Omit<FeedbackMasking, 'pseudonyms'>;
  /** The secret the reveal route opens pseudonym maps with. */
  maskingSecret: string;
  /** PAST_INCIDENT_RETENTION_DAYS: how long a rating's past incident is kept (docs/memory.md). */
  pastIncidentRetentionDays: number;
  /** Where every function's log lines and EMF records go. */
  log: LogDestination;
  now?: () => number;
}

/**
 * The InternalApi's functions composed for one process: each handler built by the factory its deployed entry uses
 * (`functions/get-run.ts`, `start-diagnosis.ts`, …), on one table, with the caller's workflow instead of Step
 * Functions. NOTE: for `diagnosis serve` only — the deployed entries compose themselves from their linked settings,
 * each with only the grants its route needs.
 */
export async function composeLocalApi(options: LocalApiOptions): Promise<Record<ApiFunctionName, ApiHandler>> {
  const table = { client: options.dynamo, tableName: options.tableName };
  const store: RunStore = createDynamoRunStore({ ...table, maxOpenRuns: options.maxOpenRuns });
  const pastIncidents = createDynamoPastIncidentStore(table);
  const observe = (name: string) => createObservability(name, options.log);
  const policy = options.policy;
  const deps = await buildTriggerDeps(options.trigger, options.now ?? Date.now, options.dynamo, options.workflow);
  return {
    StartDiagnosis: createStartDiagnosisHandler(
      { store, workflow: options.workflow },
      { ...observe('StartDiagnosis'), policy },
    ) as ApiHandler,
    GetRun: createGetRunHandler(store, {
      ...observe('GetRun'),
      policy,
      deliveries: createDynamoDeliveryStore(table),
      incidents: createDynamoIncidentStore(table),
      feedback: createDynamoFeedbackStore(table),
    }) as ApiHandler,
    GetRunAudit: createGetRunAuditHandler(store, { ...observe('GetRunAudit'), policy }) as ApiHandler,
    GetRunReasoning: createGetRunReasoningHandler(store, { ...observe('GetRunReasoning'), policy }) as ApiHandler,
    GetRunReveal: createGetRunRevealHandler(store, {
      ...observe('GetRunReveal'),
      policy,
      maskingSecret: options.maskingSecret,
    }) as ApiHandler,
    CancelRun: createCancelRunHandler(
      { store, workflow: options.workflow },
      { ...observe('CancelRun'), policy },
    ) as ApiHandler,
    RunFeedback: createFeedbackHandler(
      {
        store,
        rate: composeRating({
          ...table,
          masking: options.feedbackMasking,
          pastIncidentRetentionDays: options.pastIncidentRetentionDays,
          ...(options.now === undefined ? {} : { now: options.now }),
        }),
      },
      { ...observe('RunFeedback'), policy },
    ) as ApiHandler,
    PastIncidents: createPastIncidentsHandler(pastIncidents, { ...observe('PastIncidents'), policy }) as ApiHandler,
    TriggerWebhook: createWebhookHandler(
      {
        ...deps,
        secrets: {
          alertmanagerToken: options.trigger.ALERTMANAGER_WEBHOOK_TOKEN,
          pagerdutySecrets: options.trigger.PAGERDUTY_WEBHOOK_SECRETS,
          ...(options.mappingSecrets === undefined ? {} : { mappingSecrets: options.mappingSecrets }),
        },
      },
      observe('TriggerWebhook'),
    ) as ApiHandler,
    ChangeWebhook: createChangeWebhookHandler(
      {
        sources: options.changes?.sources ?? [],
        secrets: options.changes?.secrets ?? new Map(),
        store: createDynamoChangeStore({ ...table, retentionDays: options.changes?.retentionDays ?? 30 }),
        now: options.now ?? Date.now,
      },
      observe('ChangeWebhook'),
    ) as ApiHandler,
  };
}
