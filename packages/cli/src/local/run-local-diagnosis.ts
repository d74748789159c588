/**
 * One diagnosis on this machine through the real pipeline: the Diagnose function composed from settings by the root
 * the Lambda uses (`createLocalDiagnose` over `composeDiagnoseFunction`), invoked with the Step Functions payload and a Lambda context counting
 * down from the timeout, on the embedded local defaults. The live view is a tee beside the run's audit store; the
 * function's JSON log lines and metrics go to `.data/logs/`, so stdout holds only the answer.
 */
import {
  cancelDiagnosis,
  DEFAULT_RUN_LIMITS,
  DiagnosisInputError,
  type DiagnosisResult,
  loadRunEvidence,
  safeErrorName,
  teeAuditStore,
  validateQuery,
} from '@diagnosis/core';
import { limitsOf } from '@diagnosis/core/config';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { lambdaContext } from '@diagnosis/devkit';
import { createLocalDiagnose, createObservability } from '@diagnosis/functions';
import { ulid } from 'ulid';
import { CliError, type CliIo, EXIT, printable } from '../command-line.ts';
import { createLiveView } from '../live/live-view.ts';
import { renderReport } from '../render/render-report.ts';
import { localLogDestination } from './local-data.ts';
import { type LocalRuntime, startLocalRuntime } from './local-runtime.ts';
import { buildLocalSettings, checkLocalSettings } from './local-settings.ts';

export interface LocalDiagnosisOptions {
  query: string;
  enterpriseId: string;
  sessionId: string;
  continueSession: boolean;
  timeoutSeconds: number;
  json: boolean;
  /** Settings the command decides over the user's environment (the demo's scripted model). */
  settings?: Record<string, string>;
  /** Printed on stderr before the run (the demo says its model is scripted). */
  banner?: string;
}

/** Runs one diagnosis and returns the exit code: 0 published, 2 fallback, 1 failed, 130 cancelled. */
export async function runLocalDiagnosis(options: LocalDiagnosisOptions, io: CliIo): Promise<number> {
  const say = (text: string) => {
    if (!options.json) io.stderr(`${text}\n`);
  };
  // NOTE: every setting and the query are checked before anything slow starts (DynamoDB Local, the model).
  const checked = checkLocalSettings(io.env, options.settings);
  try {
    validateQuery(options.query, { ...DEFAULT_RUN_LIMITS, ...limitsOf(checked) });
  } catch (error) {
    // NOTE: the same one line as the Diagnose function's own refusal: `DiagnosisInputError: <CODE>: <fixed text>`.
    if (error instanceof DiagnosisInputError) {
      throw new CliError(EXIT.USAGE, `DiagnosisInputError: ${error.code}: ${printable(error.message)}`);
    }
    throw asCliError(error);
  }
  const runtime = await startLocalRuntime(io.env, say);
  let removeInterrupt: () => void = () => undefined;
  try {
    const settings = buildLocalSettings(io.env, runtime, options.settings);
    const log = localLogDestination(io.env);
    const live = options.json ? undefined : createLiveView({ write: io.stderr, spinner: io.stderrIsTTY });
    const { diagnose, close } = await createLocalDiagnose(settings, {
      ...createObservability('Diagnose', log.write),
      context: () => lambdaContext(options.timeoutSeconds * 1_000),
      wrapStore: (store) =>
        teeAuditStore(store, {
          onModelStep: (event) => live?.listener.onModelStep?.(event),
          onToolInvocation: (event) => live?.listener.onToolInvocation?.(event),
        }),
    });
    const runId = ulid();
    let cancelling = false;
    // NOTE: the first Ctrl-C cancels the run (it ends CANCELLED, audit flushed, progress kept, within one poll of its
    // cancel flag); a second one stops at once.
    removeInterrupt = io.onInterrupt(() => {
      if (cancelling) {
        void runtime.stop().finally(() => process.exit(EXIT.INTERRUPTED));
        return;
      }
      cancelling = true;
      live?.stop();
      io.stderr('\ncancelling the run… (Ctrl-C again to stop at once)\n');
      const store = createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName });
      void cancelDiagnosis(runId, { store }).catch(() => undefined);
    });
    if (options.banner !== undefined) say(options.banner);
    say(describeWorld(runtime, settings.MYSQL_URL !== undefined, log.path));
    say(
      `run ${runId}  enterprise ${options.enterpriseId}  session ${options.sessionId}${options.continueSession ? ' (continued)' : ''}`,
    );
    let result: DiagnosisResult;
    try {
      result = await diagnose({
        runId,
        sessionId: options.sessionId,
        enterpriseId: options.enterpriseId,
        query: options.query,
        continueSession: options.continueSession,
      });
    } catch (error) {
      throw asCliError(error);
    } finally {
      live?.stop();
      await close();
    }
    // NOTE: the evidence behind each citation, read back from the run's own audit records: what the model saw.
    const store = createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName });
    const evidence = (await loadRunEvidence(store, runId))?.evidence ?? null;
    if (options.json) {
      io.stdout(`${JSON.stringify({ ...result, evidence }, null, 2)}\n`);
    } else {
      io.stdout(
        `\n${renderReport(result, { modelBaseUrl: settings.DIAGNOSIS_MODEL_BASE_URL, judgeBaseUrl: settings.SEMANTIC_GUARD_MODEL_BASE_URL, modelTimeoutMs: settings.DIAGNOSIS_MODEL_TIMEOUT_MS ?? DEFAULT_RUN_LIMITS.modelRequestTimeoutMs }, evidence ?? undefined)}\n`,
      );
      say(`\nlook at this run: npm run trace -- ${runId}   (or: npx diagnosis trace ${runId})`);
    }
    if (cancelling || result.status === 'CANCELLED') return EXIT.INTERRUPTED;
    return result.status === 'PUBLISHED' ? EXIT.OK : result.status === 'FALLBACK' ? EXIT.FALLBACK : EXIT.FAILED;
  } finally {
    removeInterrupt();
    await runtime.stop();
  }
}

function describeWorld(runtime: LocalRuntime, mysql: boolean, logPath: string): string {
  return [
    `DynamoDB at ${runtime.endpoint}, table ${runtime.tableName}; knowledge and logs from examples/; ${mysql ? 'MySQL from MYSQL_URL' : 'query_mysql answers NOT_CONFIGURED (set MYSQL_URL to use MySQL)'}`,
    `the function's log lines: ${logPath}`,
  ].join('\n');
}

/**
 * The Diagnose function's refusal as one line: an input error (its message is `<CODE>: …`, fixed texts) is the
 * caller's (exit 64); any other named error of the function's error table fails the command (exit 1). Only the
 * error's class and the function's own fixed message are shown, cut to one printable line.
 */
function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  const name = safeErrorName(error);
  const message = printable(String((error as { message?: unknown }).message ?? '').split('\n')[0] ?? '');
  return new CliError(name === 'DiagnosisInputError' ? EXIT.USAGE : EXIT.FAILED, `${name}: ${message}`);
}
