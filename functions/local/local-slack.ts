import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DiagnosisWorkflow, FeedbackMasking } from '@diagnosis/core';
import type { RunStore } from '@diagnosis/core/store';
import type { Context, DynamoDBStreamEvent, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createObservability, type LogDestination } from '../lambda/observability.ts';
import { composeRating } from '../ratings/rating-setup.ts';
import { createDynamoCardStore } from '../slack/dynamo-card-store.ts';
import { createSlackRequestHandler } from '../slack/slack-request-handler.ts';
import { buildSlackRequestDeps } from '../slack/slack-requests-setup.ts';
import {
  type ResolvedSlackApp,
  resolveSlackApps,
  type SlackAppConfig,
  SlackConfigError,
} from '../slack/slack-settings.ts';
import type { SlackWork } from '../slack/slack-work.ts';
import { createSlackWorkHandler } from '../slack/slack-work-handler.ts';
import { buildConversationDeps } from '../slack/slack-work-setup.ts';
import type { ApiHandler } from './local-api.ts';

export interface LocalSlackOptions {
  /** The stage file's `slack.apps` (secrets by name). */
  apps: readonly SlackAppConfig[];
  /** A secret's value by its SST name (undefined: unset). */
  secretOf: (name: string) => string | undefined;
  /** SLACK_API_URL: the Web API's base (undefined: Slack's own). */
  apiUrl: string | undefined;
  /** SLACK_TIMEOUT_MS: each Web API call's limit. */
  timeoutMs: number;
  dynamo: DynamoDBClient;
  tableName: string;
  /** The run store runs start in (with the admission bound, TENANT_MAX_OPEN_RUNS). */
  runs: RunStore;
  /** The workflow runs started from Slack run in (the DiagnosisWorkflow's local stand-in). */
  workflow: DiagnosisWorkflow;
  /** DIAGNOSIS_MAX_QUERY_BYTES, as the deployed SlackWork function reads it. */
  maxQueryBytes: number | undefined;
  /** The masking a rating gets (the runs' own). */
  masking: Omit<FeedbackMasking, 'pseudonyms'>;
  /** PAST_INCIDENT_RETENTION_DAYS: how long a rating's past incident is kept, as the API's ratings keep it. */
  pastIncidentRetentionDays: number;
  /** Where the two functions' log lines and EMF records go. */
  log: LogDestination;
  /** Hands work to the SlackWork queue's stand-in. */
  enqueue: (work: SlackWork) => Promise<void>;
  /** Puts work back on it after `delaySeconds` (a 429's Retry-After). */
  requeue: (work: SlackWork, delaySeconds: number) => Promise<void>;
}

export interface LocalSlack {
  /** `POST /slack/{appId}/{kind}`: the SlackRequests function. */
  requests: ApiHandler;
  /** The SlackWork function, on its two sources: the queue's SQS events and the table stream's records. */
  work: (event: SQSEvent | DynamoDBStreamEvent, context: Context) => Promise<SQSBatchResponse>;
  /** The apps served: their secrets resolved. */
  served: readonly ResolvedSlackApp[];
  /** The apps refused: a secret unset or of the wrong form (the reason names the secret, never a value). */
  refused: readonly { id: string; enterpriseId: string; channels: number; reason: string }[];
}

/**
 * The two Slack functions composed for one process (`diagnosis serve`, `diagnosis trigger --slack`): the SlackRequests
 * handler and the SlackWork handler, each built by its deployed factory from the deployed setups' own parts, with the
 * caller's queue instead of SQS. NOTE: deployed, one unset or malformed secret fails the functions' cold start, so
 * every app's requests fail; here such an app is refused on its own — each of its requests throws the cold start's
 * own `SlackConfigError` (API Gateway then answers 500) — and the others are served.
 */
export function composeLocalSlack(options: LocalSlackOptions): LocalSlack {
  const served: ResolvedSlackApp[] = [];
  const refused: LocalSlack['refused'][number][] = [];
  for (const app of options.apps) {
    try {
      served.push(...resolveSlackApps([app], options.secretOf).values());
    } catch (error) {
      if (!(error instanceof SlackConfigError)) throw error;
      refused.push({
        id: app.id,
        enterpriseId: app.enterpriseId,
        channels: app.channels.length,
        reason: error.message,
      });
    }
  }
  const apps = new Map(served.map((app) => [app.id, app]));
  const table = { client: options.dynamo, tableName: options.tableName };
  const acknowledge = createSlackRequestHandler(
    buildSlackRequestDeps({
      apps,
      cards: createDynamoCardStore(table),
      enqueue: options.enqueue,
      apiUrl: options.apiUrl,
      timeoutMs: options.timeoutMs,
    }),
    createObservability('SlackRequests', options.log),
  );
  const refusedReasons = new Map(refused.map((app) => [app.id, app.reason]));
  const requests: ApiHandler = async (event, context) => {
    const appId = (event as { pathParameters?: { appId?: unknown } } | null)?.pathParameters?.appId;
    const reason = typeof appId === 'string' ? refusedReasons.get(appId) : undefined;
    if (reason !== undefined) throw new SlackConfigError(reason);
    return acknowledge(event as never, context);
  };
  const work = createSlackWorkHandler(
    buildConversationDeps({
      apps,
      apiUrl: options.apiUrl,
      timeoutMs: options.timeoutMs,
      ...table,
      runs: options.runs,
      workflow: options.workflow,
      maxQueryBytes: options.maxQueryBytes,
      rate: composeRating({
        ...table,
        masking: options.masking,
        pastIncidentRetentionDays: options.pastIncidentRetentionDays,
      }),
      runLinksTo: null,
    }),
    { ...createObservability('SlackWork', options.log), requeue: options.requeue },
  );
  return { requests, work: (event, context) => work(event, context), served, refused };
}
