import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_RUN_LIMITS, type DiagnosisWorkflow, loadCustomRules } from '@diagnosis/core';
import { parseTriggerSettings, SettingsError, type TriggerSettings } from '@diagnosis/core/config';
import {
  createDynamoChangeStore,
  createDynamoClient,
  createDynamoIncidentStore,
  createDynamoRunStore,
} from '@diagnosis/core/store';
import { ulid } from 'ulid';
import { createDeployedWorkflow } from '../diagnose/deployed-workflow.ts';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment } from '../lambda/linked-environment.ts';
import { resolveMaskingSecret } from '../lambda/masking-secret.ts';
import type { TriggerDeps } from './trigger-service.ts';

/**
 * The Trigger functions' dependencies from their settings: the table's stores (one DynamoDB client for both), the
 * workflow, the mappings, and the masking of the sender's texts. NOTE: fails naming MASKING_SECRET on a deployed
 * table without `MaskingKey` (see resolveMaskingSecret): an event is then refused (500, the sender retries; the
 * dead-letter queue for CloudWatch) rather than its text stored or shown in clear or masked with the public key.
 */
export async function buildTriggerDeps(
  settings: TriggerSettings,
  now: () => number = Date.now,
  dynamo: DynamoDBClient = createDynamoClient(settings, process.env),
  /** The workflow runs start in: the DiagnosisWorkflow (DIAGNOSIS_WORKFLOW_ARN) unless a local stand-in is given. */
  workflow: DiagnosisWorkflow = createDeployedWorkflow(settings),
): Promise<TriggerDeps> {
  const secret = resolveMaskingSecret(settings);
  if (secret === null) throw new SettingsError(['MASKING_SECRET']);
  const runs = createDynamoRunStore({
    client: dynamo,
    tableName: settings.DIAGNOSIS_TABLE_NAME,
    retentionDays: settings.RETENTION_DAYS,
    maxOpenRuns: settings.TENANT_MAX_OPEN_RUNS,
    pseudonymRetentionDays: settings.PSEUDONYM_RETENTION_DAYS ?? settings.REASONING_RETENTION_DAYS,
  });
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
      store: runs,
      workflow,
      ...(settings.DIAGNOSIS_MAX_QUERY_BYTES === undefined
        ? {}
        : { limits: { maxQueryBytes: settings.DIAGNOSIS_MAX_QUERY_BYTES } }),
    },
    quietPeriodMs: settings.TRIGGER_QUIET_PERIOD_SECONDS * 1_000,
    // NOTE: read only to count a new run's lookback changes for its question (the change stream's own partitions).
    changes: createDynamoChangeStore({ client: dynamo, tableName: settings.DIAGNOSIS_TABLE_NAME }),
    now,
    newRunId: () => ulid(),
    masking: {
      config: {
        mode: settings.MASKING,
        secret,
        // NOTE: RE2JS is imported only when the stage defines patterns (see loadCustomRules).
        rules: await loadCustomRules(settings.MASKING_PATTERNS, settings.MASKING_EXCLUSIONS),
      },
      pseudonyms: runs,
    },
  };
}

/** The cold start of a Trigger function: its settings (SST's linked secrets merged in) and dependencies. */
export function loadTrigger(): Promise<{ settings: TriggerSettings; deps: TriggerDeps }> {
  return coldStart(async () => {
    const settings = parseTriggerSettings(readLinkedEnvironment());
    return { settings, deps: await buildTriggerDeps(settings) };
  });
}
