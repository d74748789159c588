/**
 * One diagnosis on this machine through the real pipeline: the real Diagnose handler (imported as a cold start
 * would), a synthesized Step Functions event, a Lambda context counting down from the timeout, the embedded local
 * defaults. Returns the process exit code: 0 published, 2 fallback, 1 failed or bad input.
 */
import { cancelDiagnosis, DEFAULT_RUN_LIMITS, type DiagnosisResult } from '@diagnosis/core';
import { DEFAULT_MODEL_BASE_URL } from '@diagnosis/core/config';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import { ulid } from 'ulid';
import { lambdaContext } from '../functions/setup/lambda-context.ts';
import { followRun } from './live-timeline.ts';
import { startLocalRuntime } from './local-runtime.ts';
import { renderReport } from './render-report.ts';

export interface LocalDiagnosisOptions {
  query: string;
  enterpriseId: string;
  sessionId: string;
  continueSession: boolean;
  timeoutSeconds: number;
  json: boolean;
  /** Printed on stderr before the run (the demo says its model is a replay). */
  banner?: string;
}

export async function runLocalDiagnosis(options: LocalDiagnosisOptions): Promise<number> {
  const say = (text: string) => {
    if (!options.json) process.stderr.write(`${text}\n`);
  };
  // NOTE: the handler logs JSON lines and EMF metrics to stdout (CloudWatch in Lambda); locally stdout is the answer's.
  const original = { log: console.log, info: console.info, warn: console.warn, error: console.error };
  const toStderr = (...parts: unknown[]) => {
    if (!options.json) process.stderr.write(`${parts.map(String).join(' ')}\n`);
  };
  Object.assign(console, { log: toStderr, info: toStderr, warn: toStderr, error: toStderr });
  const runtime = await startLocalRuntime();
  const store = createDynamoAuditStore({ client: runtime.client, tableName: runtime.tableName });
  let runId: string | undefined;
  let cancelling = false;
  // NOTE: the first Ctrl-C cancels the run (it ends CANCELLED, audit flushed, progress kept, within one poll of its
  // cancel flag); a second one, or one before the run exists, stops at once.
  const onSignal = () => {
    if (runId === undefined || cancelling) {
      void runtime.stop().finally(() => process.exit(130));
      return;
    }
    cancelling = true;
    process.stderr.write('\ncancelling the run… (Ctrl-C again to stop at once)\n');
    void cancelDiagnosis(runId, { store }).catch(() => undefined);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (options.banner !== undefined) say(options.banner);
    say(
      `DynamoDB Local at ${runtime.endpoint}, table ${runtime.tableName}; knowledge and logs from examples/${process.env.MYSQL_URL ? '; MySQL from MYSQL_URL' : '; query_mysql answers NOT_CONFIGURED (set MYSQL_URL to use MySQL)'}`,
    );
    let handler: (event: unknown, context: unknown) => Promise<DiagnosisResult>;
    try {
      handler = (await import('../functions/diagnose.ts')).handler as unknown as typeof handler;
    } catch (error) {
      process.stderr.write(`cannot start: ${(error as Error).message}\n`);
      return 1;
    }
    runId = ulid();
    say(
      `run ${runId}  enterprise ${options.enterpriseId}  session ${options.sessionId}${options.continueSession ? ' (continued)' : ''}`,
    );
    const timeline = options.json
      ? undefined
      : followRun({ client: runtime.client, tableName: runtime.tableName, runId });
    let result: DiagnosisResult;
    try {
      result = await handler(
        {
          runId,
          sessionId: options.sessionId,
          enterpriseId: options.enterpriseId,
          query: options.query,
          continueSession: options.continueSession,
        },
        lambdaContext(options.timeoutSeconds * 1_000),
      );
    } catch (error) {
      await timeline?.stop();
      process.stderr.write(`${(error as Error).name}: ${(error as Error).message}\n`);
      return 1;
    }
    await timeline?.stop();
    if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(`\n${renderReport(result, renderContext())}\n`);
      say(`\nlook at this run: npm run trace -- ${runId}`);
    }
    if (cancelling || result.status === 'CANCELLED') return 130;
    return result.status === 'PUBLISHED' ? 0 : result.status === 'FALLBACK' ? 2 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    Object.assign(console, original);
    await runtime.stop();
  }
}

/** The settings the report names when the model failed: the endpoint's host and the per-request time limit. */
function renderContext() {
  const timeout = Number(process.env.DIAGNOSIS_MODEL_TIMEOUT_MS);
  return {
    modelBaseUrl: process.env.DIAGNOSIS_MODEL_BASE_URL || DEFAULT_MODEL_BASE_URL,
    modelTimeoutMs: Number.isSafeInteger(timeout) && timeout > 0 ? timeout : DEFAULT_RUN_LIMITS.modelRequestTimeoutMs,
  };
}
