/**
 * One scenario through the real pipeline: its world prepared, its probes on the real adapters, then its query (and
 * its previous turn) through the real Diagnose handler, provider, guards and release, against DynamoDB Local — with
 * the model either a loopback server replaying `scripted.json` in DeepSeek's wire format (offline) or the configured
 * endpoint (live). The run's clock starts at the scenario's `now`.
 * NOTE: a little over 300 lines on purpose: one scenario's run from its world to its score, whose steps share the
 * world, the model server and the adapters that one `finally` releases; the world, probes, scorer and recorded world
 * are modules of their own.
 */

import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import {
  DEVELOPMENT_MASKING_SECRET,
  openPseudonymBatches,
  type ProcessScorecard,
  type PseudonymEntry,
  type RunUsage,
  revealText,
  safeErrorName,
} from '@diagnosis/core';
import { parseDiagnosisSettings, SettingsError } from '@diagnosis/core/config';
import { createEvidenceAdapters } from '@diagnosis/core/evidence';
import {
  createDynamoChangeStore,
  createDynamoClient,
  createDynamoPastIncidentStore,
  createDynamoRunStore,
  ensureDiagnosisTable,
} from '@diagnosis/core/store';
import {
  type DeepSeekResponse,
  lambdaContext,
  type MeasuredUsage,
  measureRunTokens,
  startDeepSeekServer,
  type TokenCounter,
} from '@diagnosis/devkit';
import { createLocalDiagnose, createObservability } from '@diagnosis/functions';
import { ulid } from 'ulid';
import { type Price, priceOf } from './price.ts';
import { type ProbeResult, runProbes } from './probes.ts';
import { createRecordedEvidence, recordedPseudonymsOf } from './recorded-world.ts';
import { type CapturedRow, capturedRow } from './regression.ts';
import type { Scenario, ScenarioVerdict } from './scenario.ts';
import { observeResult, type RunObservation, revealedObservation, type Score, scoreRun } from './score.ts';
import { prepareWorld, type WorldOptions } from './world.ts';

export type EvalMode = 'offline' | 'live';

export interface ScenarioContext extends WorldOptions {
  mode: EvalMode;
  dynamoEndpoint: string;
  tableName: string;
  /** Live: the model and limit settings (DIAGNOSIS_MODEL_*, SEMANTIC_GUARD*, DIAGNOSIS_MAX_*, …). */
  liveSettings: Record<string, string>;
  /** The time a run may take (its Lambda deadline). */
  runTimeoutMs: number;
  price: Price;
  /** Offline: DeepSeek's tokenizer, to measure the requests the loopback server received (see `measured`). */
  tokenCounter?: TokenCounter | undefined;
}

type ScenarioStatus = 'RAN' | 'PROBES_ONLY' | 'SKIPPED' | 'ERROR';

export interface ScenarioRun {
  id: string;
  title: string;
  category: Scenario['category'];
  expectedOutcome: Scenario['expected']['outcome'];
  status: ScenarioStatus;
  /** The scorer's verdict of the run; null when no run happened. */
  verdict: ScenarioVerdict | null;
  /** Offline: what the scenario says the scripted run must score (CORRECT unless deliberately wrong); live: CORRECT. */
  expectedVerdict: ScenarioVerdict;
  deliberatelyWrong: boolean;
  /** The SemanticGuard as configured for this run. */
  semanticGuard: 'enforce' | 'shadow' | 'off';
  score: Score | null;
  observation: RunObservation | null;
  probes: ProbeResult[];
  /** Both turns of a follow-up scenario. */
  usage: Pick<
    RunUsage,
    'modelCalls' | 'toolCalls' | 'inputTokens' | 'cachedInputTokens' | 'outputTokens' | 'totalTokens'
  >;
  /**
   * Offline: the tokens of the request bodies actually sent, counted with DeepSeek's tokenizer (prompt-cache hits
   * estimated from shared prefixes); null in live mode (the provider's own usage is in `usage`) or without a run.
   */
  measured: MeasuredUsage | null;
  /** USD at the eval's price: of the measured tokens when there are, else of `usage`. */
  costUsd: number;
  latencyMs: number;
  runId: string | null;
  /** Why the scenario could not run (a stable code and a short text, never a raw exception). */
  error: string | null;
  notes: string[];
  /** Probes all passed and the verdict is the expected one. */
  passed: boolean;
  /** The process scorecard the scenario's (last) run stored; null when no run happened. */
  process: ProcessScorecard | null;
  /** For a captured scenario: the original run, its rating, the replay, and whether it regressed. */
  captured: CapturedRow | null;
  /** The scenario this one recurs (its `baseline`): the summary compares their rounds. */
  baseline: string | null;
}

const EMPTY_USAGE: ScenarioRun['usage'] = {
  modelCalls: 0,
  toolCalls: 0,
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
};

function addUsage(total: ScenarioRun['usage'], usage: RunUsage): ScenarioRun['usage'] {
  return {
    modelCalls: total.modelCalls + usage.modelCalls,
    toolCalls: total.toolCalls + usage.toolCalls,
    inputTokens: total.inputTokens + usage.inputTokens,
    cachedInputTokens: total.cachedInputTokens + usage.cachedInputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    totalTokens: total.totalTokens + usage.totalTokens,
  };
}

/** A scenario's row before anything ran: no verdict, no usage, ERROR until a run or a skip says otherwise. */
export function emptyRun(scenario: Scenario): ScenarioRun {
  return {
    id: scenario.id,
    title: scenario.title,
    category: scenario.category,
    expectedOutcome: scenario.expected.outcome,
    status: 'ERROR',
    verdict: null,
    expectedVerdict: 'CORRECT',
    deliberatelyWrong: false,
    semanticGuard: 'off',
    score: null,
    observation: null,
    probes: [],
    usage: EMPTY_USAGE,
    measured: null,
    costUsd: 0,
    latencyMs: 0,
    runId: null,
    error: null,
    notes: [],
    passed: false,
    process: null,
    captured: null,
    baseline: scenario.baseline ?? null,
  };
}

function errorCode(error: unknown): string {
  if (error instanceof SettingsError) return `SETTINGS_INVALID: ${error.keys.join(', ')}`;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : safeErrorName(error);
}

export async function runScenario(scenario: Scenario, context: ScenarioContext): Promise<ScenarioRun> {
  const deliberatelyWrong = context.mode === 'offline' && scenario.expected.scripted !== undefined;
  const base: ScenarioRun = {
    ...emptyRun(scenario),
    expectedVerdict: deliberatelyWrong ? (scenario.expected.scripted?.verdict ?? 'CORRECT') : 'CORRECT',
    deliberatelyWrong,
  };
  let world: Awaited<ReturnType<typeof prepareWorld>>;
  try {
    world = await prepareWorld(scenario, context);
  } catch (error) {
    return { ...base, error: `WORLD: ${errorCode(error)}` };
  }
  const notes: string[] = [];
  if (world.generatedLines > 0) notes.push(`${world.generatedLines} log lines generated`);
  if (world.mysql === 'NOT_CONFIGURED' && context.mysqlAdminUrl === undefined) {
    notes.push('no MySQL server: query_mysql answers NOT_CONFIGURED');
  }
  const scripted = scenario.scripted;
  const agentScript = [
    ...(scripted?.previousTurn?.responses ?? []),
    ...(scripted?.responses ?? []),
  ] as unknown as DeepSeekResponse[];
  const judgeScript = [
    ...(scripted?.previousTurn?.judge ?? []),
    ...(scripted?.judge ?? []),
  ] as unknown as DeepSeekResponse[];
  const replay = context.mode === 'offline' ? scenario.replayModel : undefined;
  const server =
    replay !== undefined
      ? await startDeepSeekServer([...replay.agent], [...replay.judge])
      : context.mode === 'offline' && scripted !== undefined
        ? await startDeepSeekServer([...agentScript], [...judgeScript])
        : undefined;
  let evidence: Awaited<ReturnType<typeof createEvidenceAdapters>> | undefined;
  let dynamoOfRun: { destroy(): void } | undefined;
  // NOTE: a scenario with past incidents or changes gets a table of its own, so no other scenario's run meets them.
  const ownTable =
    scenario.pastIncidents === undefined && scenario.changes === undefined
      ? undefined
      : `${context.tableName}-${scenario.id}`;
  const tableName = ownTable ?? context.tableName;
  const tableClient =
    ownTable === undefined
      ? undefined
      : createDynamoClient({ DIAGNOSIS_TABLE_NAME: ownTable, DYNAMODB_ENDPOINT: context.dynamoEndpoint }, process.env);
  try {
    if (tableClient !== undefined) await seedPastIncidents(scenario, tableClient, tableName);
    if (tableClient !== undefined) await seedChanges(scenario, tableClient, tableName);
    const probesOnly = context.mode === 'offline' && scripted === undefined && replay === undefined;
    const model: Record<string, string> = probesOnly
      ? // NOTE: no model is called for a scenario without scripted.json; the settings still need a key to parse.
        { DIAGNOSIS_MODEL_API_KEY: 'eval-probes-only-no-model', SEMANTIC_GUARD: 'off' }
      : server === undefined
        ? context.liveSettings
        : replay !== undefined
          ? {
              DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
              DIAGNOSIS_MODEL_API_KEY: 'eval-replay-no-key',
              DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
              SEMANTIC_GUARD: 'enforce',
            }
          : {
              DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
              DIAGNOSIS_MODEL_API_KEY: 'eval-scripted-replay-no-key',
              DIAGNOSIS_MODEL_ID: String(scripted?.responses[0]?.model ?? 'deepseek-v4-flash'),
              // NOTE: without a scripted judge there is nothing to answer the SemanticGuard: it is off, and said so.
              SEMANTIC_GUARD:
                scripted?.judge === undefined && scripted?.previousTurn?.judge === undefined ? 'off' : 'enforce',
            };
    const settings = parseDiagnosisSettings({
      ...(scenario.timeZone === undefined ? {} : { DIAGNOSIS_TIMEZONE: scenario.timeZone }),
      DIAGNOSIS_TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: context.dynamoEndpoint,
      // Scenarios of one enterprise run side by side here; the per-enterprise cap is a deployment's, not the eval's.
      TENANT_MAX_CONCURRENT_RUNS: '256',
      ...world.settings,
      ...model,
    });
    const semanticGuard = settings.SEMANTIC_GUARD;
    if (semanticGuard === 'off' && !probesOnly) {
      notes.push(
        server === undefined ? 'SemanticGuard off (SEMANTIC_GUARD=off)' : 'SemanticGuard off: no scripted judge',
      );
    }
    evidence = await createEvidenceAdapters(settings);
    const probes = await runProbes(scenario.probes, {
      enterpriseId: scenario.enterpriseId,
      evidence: evidence.evidence,
      scenarioId: scenario.id,
    });
    const probesPassed = probes.every((probe) => probe.passed);
    if (probesOnly) {
      notes.push('no scripted.json: probes only');
      return { ...base, status: 'PROBES_ONLY', semanticGuard, probes, notes, passed: probesPassed };
    }

    // NOTE: a captured scenario's run sees only its recording (any other input: NOT_RECORDED), never the world.
    const recorded =
      scenario.recording === undefined
        ? undefined
        : createRecordedEvidence(scenario.recording, evidence.evidence.query_mysql.catalog);
    const offset = Date.parse(scenario.now) - Date.now();
    // NOTE: the Lambda's own composition root; the function's log lines and metrics are dropped (the eval's stdout
    // is its scorecard, and the audit in the table holds what a run did).
    const composed = await createLocalDiagnose(settings, {
      ...createObservability('Diagnose', () => undefined),
      context: () => lambdaContext(context.runTimeoutMs),
      evidence: recorded ?? evidence.evidence,
      now: () => Date.now() + offset,
      // NOTE: a captured run replays as recorded: its pseudonyms are valid arguments here, and only here.
      ...(scenario.recording === undefined
        ? {}
        : { recordedReplay: { recordedPseudonyms: recordedPseudonymsOf(scenario.recording) } }),
    });
    dynamoOfRun = composed.dynamo;
    const sessionId = `eval-${scenario.id}-${ulid().toLowerCase()}`.slice(0, 128);
    const invoke = async (query: string, continueSession: boolean) => {
      const runId = `eval-${ulid()}`;
      const result = await composed.diagnose({
        runId,
        sessionId,
        enterpriseId: scenario.enterpriseId,
        query,
        continueSession,
      });
      return { runId, result };
    };
    const started = performance.now();
    let usage = EMPTY_USAGE;
    if (scenario.previousTurn !== undefined) {
      const previous = await invoke(scenario.previousTurn.query, false);
      usage = addUsage(usage, previous.result.usage);
      if (previous.result.status !== 'PUBLISHED') notes.push(`previous turn ended ${previous.result.status}`);
    }
    const { runId, result } = await invoke(scenario.query, scenario.previousTurn !== undefined);
    const latencyMs = performance.now() - started;
    usage = addUsage(usage, result.usage);
    // The run's own pseudonym map, read back from the table like the reveal route does, for the scorer only.
    const store = createDynamoRunStore({ client: composed.dynamo, tableName });
    const entries = openPseudonymBatches(
      settings.MASKING_SECRET ?? DEVELOPMENT_MASKING_SECRET,
      runId,
      (await store.listPseudonyms(runId)).records,
    );
    const byToken = new Map<string, PseudonymEntry>(entries.map((entry) => [entry.token, entry]));
    const observation = observeResult(result);
    const score = scoreRun(
      scenario.expected,
      revealedObservation(observation, (text) => revealText(text, byToken)),
    );
    if (observation.removedClaims > 0) notes.push(`SemanticGuard removed ${observation.removedClaims} claim(s)`);
    // NOTE: the server answers its queues in order, so the i-th request got the i-th scripted response.
    const measured =
      server === undefined || context.tokenCounter === undefined
        ? null
        : measureRunTokens(
            context.tokenCounter,
            { requests: server.requests, responses: replay?.responses.agent ?? agentScript },
            { requests: server.judgeRequests, responses: replay?.responses.judge ?? judgeScript },
          );
    const stored = await createDynamoRunStore({ client: composed.dynamo, tableName }).getRun(runId);
    const notRecorded = recorded?.asked.filter((call) => !call.recorded).length ?? 0;
    if (notRecorded > 0) notes.push(`${notRecorded} tool call(s) not in the recording (NOT_RECORDED)`);
    return {
      ...base,
      status: 'RAN',
      verdict: score.verdict,
      semanticGuard,
      score,
      observation,
      probes,
      usage,
      measured,
      costUsd: priceOf(measured ?? usage, context.price),
      latencyMs,
      runId,
      notes,
      passed: probesPassed && score.verdict === base.expectedVerdict,
      process: stored?.processScorecard ?? null,
      captured:
        scenario.capture === undefined ? null : capturedRow(scenario.capture, observation, score.verdict, notRecorded),
    };
  } catch (error) {
    return { ...base, error: errorCode(error), notes };
  } finally {
    await server?.close();
    dynamoOfRun?.destroy();
    if (tableClient !== undefined) {
      await tableClient.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
      tableClient.destroy();
    }
    await evidence?.close().catch(() => undefined);
    await world.close().catch(() => undefined);
  }
}

/** The scenario's past incidents, remembered for its enterprise in its own table before its run (docs/memory.md). */
async function seedPastIncidents(
  scenario: Scenario,
  client: ReturnType<typeof createDynamoClient>,
  tableName: string,
): Promise<void> {
  await ensureDiagnosisTable(client, tableName);
  const incidents = createDynamoPastIncidentStore({ client, tableName });
  for (const incident of scenario.pastIncidents ?? []) {
    await incidents.remember({
      ...incident,
      enterpriseId: scenario.enterpriseId,
      ratedAt: new Date(Date.parse(incident.occurredAt) + 3_600_000).toISOString(),
      // NOTE: the memory's expiry is checked against real time (the run's clock is the scenario's): kept a day.
      expiresAt: Date.now() + 86_400_000,
    });
  }
}

/** The scenario's changes, recorded for its enterprise in its own table before its run, as a change webhook would. */
async function seedChanges(
  scenario: Scenario,
  client: ReturnType<typeof createDynamoClient>,
  tableName: string,
): Promise<void> {
  const changes = createDynamoChangeStore({ client, tableName });
  for (const change of scenario.changes ?? []) {
    await changes.record({
      ...change,
      enterpriseId: scenario.enterpriseId,
      source: 'webhook',
      origin: 'argocd',
      environment: 'production',
      receivedAt: change.at,
    });
  }
}
