/**
 * The Lambda functions that sst.config.ts deploys, and where `npm run build:functions` puts each one's code. This
 * module has no dependencies: sst.config.ts imports it, and `functionCode(name)` is the only way a function there gets
 * its code (SST's `bundle` option), so what is deployed is exactly what the build wrote.
 */
import { basename, join } from 'node:path';

/** Function name in sst.config.ts → its entry point. */
export const LAMBDA_FUNCTIONS = {
  Diagnose: 'functions/diagnose.ts',
  GetRun: 'functions/get-run.ts',
  GetRunAudit: 'functions/get-run-audit.ts',
  GetRunReasoning: 'functions/get-run-reasoning.ts',
  GetRunReveal: 'functions/get-run-reveal.ts',
  StartDiagnosis: 'functions/start-diagnosis.ts',
  CancelRun: 'functions/cancel-run.ts',
  RunFeedback: 'functions/post-run-feedback.ts',
  PastIncidents: 'functions/past-incidents.ts',
  OnWorkflowStopped: 'functions/on-workflow-stopped.ts',
  OnRunFinished: 'functions/on-run-finished.ts',
  DeliverResults: 'functions/deliver-results.ts',
  SweepRuns: 'functions/sweep-runs.ts',
  Trigger: 'functions/trigger.ts',
  TriggerWebhook: 'functions/trigger-webhook.ts',
  SlackRequests: 'functions/slack-requests.ts',
  SlackWork: 'functions/slack-work.ts',
  ChangeWebhook: 'functions/change-webhook.ts',
  ChangeEvents: 'functions/change-events.ts',
} as const;

export type LambdaFunctionName = keyof typeof LAMBDA_FUNCTIONS;

/** One folder per function (its handler file at the root, its chunks beside it): SST zips the whole folder. */
export const FUNCTIONS_OUT_DIR = '.data/build/functions';

/** The function names of a comma-separated list (`GetRun,SlackWork`), and the entries that name no function. */
export function parseFunctionNames(list: string): { names: LambdaFunctionName[]; unknown: string[] } {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const isName = (entry: string): entry is LambdaFunctionName => Object.hasOwn(LAMBDA_FUNCTIONS, entry);
  return { names: [...new Set(entries.filter(isName))], unknown: entries.filter((entry) => !isName(entry)) };
}

/** The built handler file of `name`, relative to its bundle folder (`diagnose.mjs`). */
export function handlerFileOf(name: LambdaFunctionName): string {
  return `${basename(LAMBDA_FUNCTIONS[name], '.ts')}.mjs`;
}

/**
 * The `bundle` and `handler` options of `sst.aws.Function` for `name`: SST then zips that folder as it is and skips
 * its own esbuild build (so SST's `nodejs` options must not be set beside them). `root` is the app's root
 * (sst.config.ts passes `$cli.paths.root`, against which SST resolves `copyFiles` too).
 */
export function functionCode(name: LambdaFunctionName, root = '.') {
  return { bundle: join(root, FUNCTIONS_OUT_DIR, name), handler: `${basename(LAMBDA_FUNCTIONS[name], '.ts')}.handler` };
}
