/**
 * An eval run: the corpus loaded and validated, one DynamoDB Local (or the one DYNAMODB_ENDPOINT names) with a table of
 * this run's own, the scenarios run K at a time, and in live mode a total token cap: once the runs so far have spent
 * it, the scenarios not yet started are SKIPPED (runs in flight finish, so the overshoot is at most K − 1 runs'
 * budgets).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { createDynamoClient, ensureDiagnosisTable } from '@diagnosis/core/store';
import { loadDeepSeekTokenizer, startDynamoDbLocal } from '@diagnosis/devkit';
import { createConnection } from 'mysql2/promise';
import { ulid } from 'ulid';
import type { Price } from './price.ts';
import { type EvalMode, emptyRun, runScenario, type ScenarioContext, type ScenarioRun } from './run-scenario.ts';
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
  /**
   * Runs one scenario (default: `runScenario`). A corpus imported from elsewhere builds each scenario's world just
   * before its run and measures what it adds around it (cloud-opsbench/run-cloud-opsbench.ts).
   */
  runScenario?: (scenario: Scenario, context: ScenarioContext) => Promise<ScenarioRun>;
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

export async function runEval(scenarios: readonly Scenario[], options: EvalOptions): Promise<EvalReport> {
  const startedAt = new Date();
  const started = performance.now();
  const given = options.dynamoEndpoint;
  const starting = given === undefined || given === '' ? startDynamoDbLocal() : undefined;
  // NOTE: offline only: the requests reach our loopback server, whose bodies are measured with DeepSeek's tokenizer
  // (loaded while the JVM starts).
  const tokenCounter =
    options.mode === 'offline'
      ? await loadDeepSeekTokenizer().catch(async (error: unknown) => {
          await (await starting)?.stop();
          throw error;
        })
      : undefined;
  const engine = await starting;
  const endpoint = engine?.endpoint ?? (given as string);
  const tableName = `diagnosis-eval-${ulid().toLowerCase()}`;
  const dynamo = createDynamoClient({ DIAGNOSIS_TABLE_NAME: tableName, DYNAMODB_ENDPOINT: endpoint }, process.env);
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
          runs[index] = {
            ...emptyRun(scenario),
            status: 'SKIPPED',
            notes: [`total token cap ${options.totalTokenCap} reached`],
          };
        } else {
          options.onProgress?.({ kind: 'start', scenario, done });
          runs[index] = await (options.runScenario ?? runScenario)(scenario, {
            mode: options.mode,
            dynamoEndpoint: endpoint,
            tableName,
            repoRoot: REPO_ROOT,
            scratchDir,
            mysqlAdminUrl: options.mysqlAdminUrl,
            liveSettings: options.liveSettings,
            runTimeoutMs: options.runTimeoutMs,
            price: options.price,
            tokenCounter,
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
