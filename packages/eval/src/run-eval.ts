/**
 * An eval run: the corpus loaded and validated, one DynamoDB Local (or the one DYNAMODB_ENDPOINT names) with a table of
 * this run's own, the scenarios run K at a time, and in live mode a total token cap: once the runs so far have spent
 * it, the scenarios not yet started are SKIPPED (runs in flight finish, so the overshoot is at most K − 1 runs'
 * budgets).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureDiagnosisTable } from '@diagnosis/core/store';
import { startDynamoDbLocal } from '@diagnosis/devkit';
import { createConnection } from 'mysql2/promise';
import { ulid } from 'ulid';
import type { Price } from './price.ts';
import { type EvalMode, runScenario, type ScenarioRun } from './run-scenario.ts';
import type { Scenario } from './scenario.ts';
import { type EvalSummary, summarize } from './summary.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '../../..');

export interface EvalOptions {
  mode: EvalMode;
  concurrency: number;
  price: Price;
  /** A MySQL URL allowed to create and drop databases, or undefined. */
  mysqlAdminUrl: string | undefined;
  /** Live: the model and limit settings. */
  liveSettings: Record<string, string>;
  /** Live: stop starting scenarios once this many tokens are spent. */
  totalTokenCap: number;
  runTimeoutMs: number;
  /** A DynamoDB endpoint to use (a table of this run's own is made and deleted); undefined: start DynamoDB Local. */
  dynamoEndpoint?: string | undefined;
  /** Called when a scenario starts and when it ends. */
  onProgress?: (event: { kind: 'start' | 'end'; scenario: Scenario; run?: ScenarioRun; done: number }) => void;
}

export interface EvalReport {
  version: 1;
  mode: EvalMode;
  startedAt: string;
  wallMs: number;
  concurrency: number;
  price: Price;
  summary: EvalSummary;
  scenarios: ScenarioRun[];
}

/** Whether a MySQL server answers at this URL (a 2-second connect; the URL is never printed). */
export async function mysqlReachable(url: string): Promise<boolean> {
  try {
    const connection = await createConnection({ uri: url, connectTimeout: 2_000 });
    await connection.end();
    return true;
  } catch {
    return false;
  }
}

function skipped(scenario: Scenario, note: string): ScenarioRun {
  return {
    id: scenario.id,
    title: scenario.title,
    category: scenario.category,
    expectedOutcome: scenario.expected.outcome,
    status: 'SKIPPED',
    verdict: null,
    expectedVerdict: 'CORRECT',
    deliberatelyWrong: false,
    semanticGuard: 'off',
    score: null,
    observation: null,
    probes: [],
    usage: { modelCalls: 0, toolCalls: 0, inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, totalTokens: 0 },
    costUsd: 0,
    latencyMs: 0,
    runId: null,
    error: null,
    notes: [note],
    passed: false,
  };
}

export async function runEval(scenarios: readonly Scenario[], options: EvalOptions): Promise<EvalReport> {
  const startedAt = new Date();
  const started = performance.now();
  const given = options.dynamoEndpoint;
  const engine = given === undefined || given === '' ? await startDynamoDbLocal() : undefined;
  const endpoint = engine?.endpoint ?? (given as string);
  const local = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(endpoint);
  const dynamo = new DynamoDBClient({
    endpoint,
    maxAttempts: 3,
    ...(local ? { region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  const tableName = `diagnosis-eval-${ulid().toLowerCase()}`;
  const scratchDir = mkdtempSync(join(tmpdir(), 'diagnosis-eval-'));
  const runs: ScenarioRun[] = new Array(scenarios.length);
  try {
    await ensureDiagnosisTable(dynamo, tableName);
    let next = 0;
    let done = 0;
    let spent = 0;
    const worker = async () => {
      while (next < scenarios.length) {
        const index = next;
        next += 1;
        const scenario = scenarios[index] as Scenario;
        if (options.mode === 'live' && spent >= options.totalTokenCap) {
          runs[index] = skipped(scenario, `total token cap ${options.totalTokenCap} reached`);
        } else {
          options.onProgress?.({ kind: 'start', scenario, done });
          runs[index] = await runScenario(scenario, {
            mode: options.mode,
            dynamoEndpoint: endpoint,
            tableName,
            repoRoot: REPO_ROOT,
            scratchDir,
            mysqlAdminUrl: options.mysqlAdminUrl,
            liveSettings: options.liveSettings,
            runTimeoutMs: options.runTimeoutMs,
            price: options.price,
          });
          spent += (runs[index] as ScenarioRun).usage.totalTokens;
        }
        done += 1;
        options.onProgress?.({ kind: 'end', scenario, run: runs[index] as ScenarioRun, done });
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, scenarios.length) }, worker));
  } finally {
    // NOTE: a DynamoDB Local we started holds the table in memory and goes with it; a given endpoint keeps nothing.
    if (engine === undefined)
      await dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    dynamo.destroy();
    await engine?.stop();
    rmSync(scratchDir, { recursive: true, force: true });
  }
  return {
    version: 1,
    mode: options.mode,
    startedAt: startedAt.toISOString(),
    wallMs: performance.now() - started,
    concurrency: options.concurrency,
    price: options.price,
    summary: summarize(runs),
    scenarios: runs,
  };
}
