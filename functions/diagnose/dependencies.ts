import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createChangeStreamLogs,
  createDraftFormatMiddleware,
  createPastIncidentKnowledge,
  type DiagnosisServiceDeps,
  type EvidenceAdapters,
  loadCustomRules,
  type PastIncidentKnowledgeOptions,
} from '@diagnosis/core';
import { type DiagnosisSettings, limitsOf, modelProfile, SettingsError } from '@diagnosis/core/config';
import { createEvidenceAdapters } from '@diagnosis/core/evidence';
import {
  createDynamoChangeStore,
  createDynamoClient,
  createDynamoPastIncidentStore,
  createDynamoStores,
} from '@diagnosis/core/store';
import { wrapLanguageModel } from 'ai';
import { resolveMaskingSecret } from '../lambda/masking-secret.ts';

/**
 * Everything a diagnosis needs, built once per cold start: the DynamoDB client, the model provider (the agent's model
 * and the SemanticGuard's judge), the adapters
 * (knowledge index and MySQL catalog loaded and validated here). Each invocation gets its own store object (its own
 * write-behind queue) on the shared client.
 */
export async function buildDiagnosisDependencies(
  settings: DiagnosisSettings,
  dynamo: DynamoDBClient = createDynamoClient(settings, process.env),
  /** Adapters built by the caller from the same settings (a local runner that must close its MySQL pool). */
  prebuiltEvidence?: EvidenceAdapters,
  /**
   * Told when a lookup answered without the past incidents (their read failed or timed out), or without one memory
   * it could not read: cause, class and code only.
   */
  pastIncidentNotices: Pick<PastIncidentKnowledgeOptions, 'onRetrievalFailure' | 'onUnreadableItem'> = {},
): Promise<DiagnosisServiceDeps> {
  // NOTE: never the public development key on a deployed table (see resolveMaskingSecret): no run starts instead.
  const maskingSecret = resolveMaskingSecret(settings);
  if (maskingSecret === null) throw new SettingsError(['MASKING_SECRET']);
  const profile = modelProfile(settings.DIAGNOSIS_MODEL_PROFILE);
  const agentOptions = {
    name: profile.name,
    baseURL: settings.DIAGNOSIS_MODEL_BASE_URL,
    apiKey: settings.DIAGNOSIS_MODEL_API_KEY,
    includeUsage: true,
    supportsStructuredOutputs: profile.draftFormat === 'json-schema',
  };
  const judgeOptions = {
    name: settings.SEMANTIC_GUARD_MODEL_PROFILE,
    baseURL: settings.SEMANTIC_GUARD_MODEL_BASE_URL,
    apiKey: settings.SEMANTIC_GUARD_MODEL_API_KEY,
    includeUsage: true,
    supportsStructuredOutputs: false,
  };
  const agentModel = createOpenAICompatible(agentOptions).chatModel(settings.DIAGNOSIS_MODEL_ID);
  // NOTE: a chat model object holds its configuration only (no conversation, no state between calls), so a judge
  // configured exactly as the agent (the default: the same profile, URL, key and model id) calls through the same
  // object, unwrapped; building a second one costs a cold start ≈ 4 M instructions (its zod chunk schema).
  const judgeModel =
    settings.SEMANTIC_GUARD_MODEL_ID === settings.DIAGNOSIS_MODEL_ID &&
    (Object.keys(agentOptions) as (keyof typeof agentOptions)[]).every((key) => agentOptions[key] === judgeOptions[key])
      ? agentModel
      : createOpenAICompatible(judgeOptions).chatModel(settings.SEMANTIC_GUARD_MODEL_ID);
  const sources = prebuiltEvidence ?? (await createEvidenceAdapters(settings)).evidence;
  // NOTE: the run's enterprise's change stream behind `query_logs` (service `changes`), read from the run's own table.
  const logs = createChangeStreamLogs({
    logs: sources.query_logs,
    changes: createDynamoChangeStore({ client: dynamo, tableName: settings.DIAGNOSIS_TABLE_NAME }),
  });
  // NOTE: the enterprise's past incidents ranked beside the runbooks, read from the run's own table (PAST_INCIDENTS).
  const evidence: EvidenceAdapters =
    settings.PAST_INCIDENTS === 'off'
      ? { ...sources, query_logs: logs }
      : {
          ...sources,
          query_logs: logs,
          lookup_knowledge: createPastIncidentKnowledge({
            runbooks: sources.lookup_knowledge,
            incidents: createDynamoPastIncidentStore({ client: dynamo, tableName: settings.DIAGNOSIS_TABLE_NAME }),
            ...pastIncidentNotices,
          }),
        };
  return {
    // NOTE: the forced Draft round (tools kept, `tool_choice: "none"`) asks for JSON as the profile can, and keeps
    // the tools where the profile documents both in one request; tool rounds are unchanged.
    model: wrapLanguageModel({
      model: agentModel,
      middleware: createDraftFormatMiddleware(profile.draftFormat, profile.finalRoundKeepsTools),
    }),
    // NOTE: the judge's call is a separate one that never sees the agent's conversation, only the query, the Draft
    // and the verified evidence (and never the agent's Draft-format middleware).
    semanticGuard: { mode: settings.SEMANTIC_GUARD, model: judgeModel },
    evidence,
    createStore: (budget) =>
      createDynamoStores({
        ...budget,
        client: dynamo,
        tableName: settings.DIAGNOSIS_TABLE_NAME,
        retentionDays: settings.RETENTION_DAYS,
        reasoningRetentionDays: settings.REASONING_RETENTION_DAYS,
        pseudonymRetentionDays: settings.PSEUDONYM_RETENTION_DAYS ?? settings.REASONING_RETENTION_DAYS,
        maxWritesInFlight: settings.AUDIT_MAX_WRITES_IN_FLIGHT,
        maxOpenRuns: settings.TENANT_MAX_OPEN_RUNS,
      }),
    // NOTE: the patterns' shape was checked by the settings parse, RE2's verdict at deploy; compiled once per cold
    // start here (a pattern RE2 refuses fails it, naming the key), RE2JS loaded only for a stage that has patterns.
    masking: {
      mode: settings.MASKING,
      secret: maskingSecret,
      rules: await loadCustomRules(settings.MASKING_PATTERNS, settings.MASKING_EXCLUSIONS),
    },
    limits: limitsOf(settings),
    timeZone: settings.DIAGNOSIS_TIMEZONE,
    flushReserveMs: settings.FLUSH_RESERVE_MS,
    cancelPollMs: settings.DIAGNOSIS_CANCEL_POLL_MS,
  };
}
