import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_RUN_LIMITS, type DiagnosisWorkflow } from '@diagnosis/core';
import { parseTriggerSettings, type TriggerSettings } from '@diagnosis/core/config';
import { createDynamoClient, createDynamoIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import { ulid } from 'ulid';
import type { TriggerDeps } from '../triggers/trigger-service.ts';
import { coldStart } from './cold-start.ts';
import { createDeployedWorkflow } from './deployed-workflow.ts';
import { readLinkedEnvironment } from './linked-environment.ts';

/**
 * The Trigger functions' dependencies from their settings: the table's stores (one DynamoDB client for both), the
 * workflow, the mappings.
 */
export function buildTriggerDeps(
  settings: TriggerSettings,
  now: () => number = Date.now,
  dynamo: DynamoDBClient = createDynamoClient(settings, process.env),
  /** The workflow runs start in: the DiagnosisWorkflow (DIAGNOSIS_WORKFLOW_ARN) unless a local stand-in is given. */
  workflow: DiagnosisWorkflow = createDeployedWorkflow(settings),
): TriggerDeps {
  return {
    config: {
      mappings: settings.TRIGGERS,
      lookbackMs: settings.TRIGGER_LOOKBACK_MINUTES * 60_000,
      timeZone: settings.DIAGNOSIS_TIMEZONE,
      maxQueryBytes: settings.DIAGNOSIS_MAX_QUERY_BYTES ?? DEFAULT_RUN_LIMITS.maxQueryBytes,
    },
    incidents: createDynamoIncidentStore({
      client: dynamo,
      tableName: settings.DIAGNOSIS_TABLE_NAME,
      retentionDays: settings.RETENTION_DAYS,
    }),
    start: {
      // NOTE: the admission bound of POST /diagnoses (TENANT_MAX_OPEN_RUNS) holds for triggered runs too.
      store: createDynamoRunStore({
        client: dynamo,
        tableName: settings.DIAGNOSIS_TABLE_NAME,
        retentionDays: settings.RETENTION_DAYS,
        maxOpenRuns: settings.TENANT_MAX_OPEN_RUNS,
      }),
      workflow,
      ...(settings.DIAGNOSIS_MAX_QUERY_BYTES === undefined
        ? {}
        : { limits: { maxQueryBytes: settings.DIAGNOSIS_MAX_QUERY_BYTES } }),
    },
    quietPeriodMs: settings.TRIGGER_QUIET_PERIOD_SECONDS * 1_000,
    now,
    newRunId: () => ulid(),
  };
}

/** The cold start of a Trigger function: its settings (SST's linked secrets merged in) and dependencies. */
export function loadTrigger(): Promise<{ settings: TriggerSettings; deps: TriggerDeps }> {
  return coldStart(() => {
    const settings = parseTriggerSettings(readLinkedEnvironment());
    return { settings, deps: buildTriggerDeps(settings) };
  });
}
