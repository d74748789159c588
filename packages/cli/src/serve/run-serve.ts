/**
 * `diagnosis serve`: the deployed API on this machine. One process composes the InternalApi's functions
 * (`composeLocalApi`, each handler built by its deployed entry's own factory), the Diagnose function and the
 * DiagnosisWorkflow's local stand-in (the deployed definition run by the devkit's interpreter), on the data folder's
 * DynamoDB Local and the example world, and serves the route table over HTTP (serve-server.ts). Nothing is signed: an
 * IAM route's caller is the local principal (local-principal.ts), which TENANT_ACCESS matches as it matches a
 * deployed caller. The webhook route reads ALERTMANAGER_WEBHOOK_TOKEN and PAGERDUTY_WEBHOOK_SECRETS from the
 * environment (or .env) and the stage file's `triggers`; a source whose secret is unset refuses every request, as
 * deployed. A stage file with Slack apps adds their route, `POST /slack/{appId}/{kind}` (serve-slack.ts: the secrets
 * and settings; local-slack-app.ts: the two Slack functions, their queue in this process, the cards followed).
 */
import type { TriggerSettings } from '@diagnosis/core/config';
import { parseTriggerSettings, SettingsError } from '@diagnosis/core/config';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { createLocalDiagnosisWorkflow, lambdaContext } from '@diagnosis/devkit';
import { composeLocalApi, createLocalDiagnose, createObservability } from '@diagnosis/functions';
import { type CliIo, EXIT, terminalSafe } from '../command-line.ts';
import { localDataDir, localLogDestination } from '../local/local-data.ts';
import { startLocalRuntime } from '../local/local-runtime.ts';
import {
  buildLocalSettings,
  checkLocalSettings,
  localRatingSettings,
  settingsRefusal,
} from '../local/local-settings.ts';
import { type LocalSlackApp, startLocalSlackApp } from '../local/local-slack-app.ts';
import { loadStageChangeSources, loadStageSlackApps, loadStageTriggers, stageFileName } from '../local/stage-file.ts';
import { refuseUnknownStageSecrets } from '../setting-names.ts';
import type { IamAuthorizerContext } from './local-principal.ts';
import { changeSecretKind, describeChangeSources, planServeChangeSecrets } from './serve-change-secrets.ts';
import { buildServeRoutes, type ServeRoute } from './serve-routes.ts';
import { isLoopbackAddress, startServeServer } from './serve-server.ts';
import { describeServeSlack, planServeSlack, slackSecretKind } from './serve-slack.ts';
import { describeMappingSecrets, planServeMappingSecrets, webhookSecretKind } from './serve-webhook-secrets.ts';

export interface ServeOptions {
  host: string;
  port: number;
  principal: IamAuthorizerContext;
  stage: string;
  timeoutSeconds: number;
  /** Settings the command decides over the user's environment (the scripted model). */
  settings?: Record<string, string>;
  banner?: string;
  /** Routes a capability adds to the deployed API (a chat app's): registered beside the InternalApi's. */
  extraRoutes?: readonly ServeRoute[];
  /** Called once the server listens (tests read the URL from stderr instead). */
  onListening?: (url: string) => void;
}

/** Non-empty variables only: an empty one means "the default", as for every local command. */
function nonEmpty(env: CliIo['env']): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') values[key] = value;
  return values;
}

/** Serves until Ctrl-C (or SIGTERM); then stops taking requests, lets started runs end, and returns 0. */
export async function runServe(options: ServeOptions, io: CliIo): Promise<number> {
  const say = (text: string) => io.stderr(`${text}\n`);
  // NOTE: every setting, the stage file and the masking rules checked before anything slow starts.
  checkLocalSettings(io.env, options.settings);
  const mappings = loadStageTriggers(options.stage);
  const slackApps = loadStageSlackApps(options.stage);
  const changeSources = loadStageChangeSources(options.stage);
  refuseUnknownStageSecrets(
    io.env,
    io.dotEnvKeys,
    [webhookSecretKind(mappings), slackSecretKind(slackApps), changeSecretKind(changeSources)],
    stageFileName(options.stage),
  );
  const mappingSecrets = planServeMappingSecrets(mappings, io);
  const changeSecrets = planServeChangeSecrets(changeSources, io);
  const slackPlan = await planServeSlack(slackApps, io);
  const rating = await localRatingSettings(io.env);
  const feedbackMasking = rating.masking;
  const runtime = await startLocalRuntime(io.env, say);
  let close: (() => Promise<void>) | undefined;
  let slack: LocalSlackApp | null = null;
  try {
    const settings = buildLocalSettings(io.env, runtime, options.settings);
    let trigger: TriggerSettings;
    try {
      trigger = parseTriggerSettings({
        ...nonEmpty(io.env),
        DIAGNOSIS_TABLE_NAME: runtime.tableName,
        DYNAMODB_ENDPOINT: runtime.endpoint,
        TRIGGERS: JSON.stringify(mappings),
        DIAGNOSIS_TIMEZONE: settings.DIAGNOSIS_TIMEZONE,
      });
    } catch (error) {
      if (error instanceof SettingsError) throw settingsRefusal(error);
      throw error;
    }
    const log = localLogDestination(io.env, 'serve');
    const diagnose = await createLocalDiagnose(settings, {
      ...createObservability('Diagnose', log.write),
      context: () => lambdaContext(options.timeoutSeconds * 1_000),
    });
    close = diagnose.close;
    const workflow = createLocalDiagnosisWorkflow({
      invoke: diagnose.invoke,
      store: createDynamoRunStore({ client: diagnose.dynamo, tableName: runtime.tableName }),
      logger: createObservability('OnWorkflowStopped', log.write).logger,
      invocationTimeoutMs: options.timeoutSeconds * 1_000,
    });
    slack =
      slackPlan === null
        ? null
        : startLocalSlackApp({
            ...slackPlan,
            dynamo: diagnose.dynamo,
            tableName: runtime.tableName,
            runs: createDynamoRunStore({
              client: diagnose.dynamo,
              tableName: runtime.tableName,
              maxOpenRuns: settings.TENANT_MAX_OPEN_RUNS,
            }),
            workflow,
            maxQueryBytes: settings.DIAGNOSIS_MAX_QUERY_BYTES,
            masking: feedbackMasking,
            pastIncidentRetentionDays: rating.pastIncidentRetentionDays,
            log: log.write,
            say: (line) => say(terminalSafe(line)),
          });
    const handlers = await composeLocalApi({
      dynamo: diagnose.dynamo,
      tableName: runtime.tableName,
      policy: settings.TENANT_ACCESS ?? null,
      maxOpenRuns: settings.TENANT_MAX_OPEN_RUNS,
      // NOTE: every run started here is watched for its Slack card (a triggered run's goes to its alert channel).
      workflow: slack === null ? workflow : slack.watch(workflow),
      trigger,
      mappingSecrets: mappingSecrets.values,
      changes: { sources: changeSources, secrets: changeSecrets, retentionDays: settings.CHANGE_RETENTION_DAYS },
      feedbackMasking,
      maskingSecret: feedbackMasking.secret ?? '',
      pastIncidentRetentionDays: rating.pastIncidentRetentionDays,
      log: log.write,
    });
    const slackRoutes: ServeRoute[] =
      slack === null
        ? []
        : [
            // NOTE: no IAM, as deployed: Slack's signature is the authentication.
            {
              method: 'POST',
              path: '/slack/{appId}/{kind}',
              auth: 'none',
              functionName: 'SlackRequests',
              handler: slack.requests,
            },
          ];
    const routes = buildServeRoutes(handlers, [...slackRoutes, ...(options.extraRoutes ?? [])]);
    const loopback = isLoopbackAddress(options.host);
    const server = await startServeServer({
      host: options.host,
      port: options.port,
      routes,
      principal: options.principal,
      loopback,
      onRequest: (line) => say(terminalSafe(line)),
      onHandlerError: (name, error) =>
        say(`${name} failed: ${(error as { name?: unknown } | null)?.name ?? 'Error'} (answered 500)`),
    });
    if (options.banner !== undefined) say(options.banner);
    say(
      describeServe({
        url: server.url,
        routes,
        options,
        settings,
        trigger,
        loopback,
        logPath: log.path,
        runtime,
        dataDir: localDataDir(io.env),
        slack: describeServeSlack(options.stage, slackPlan, slack),
        mappingSecrets: describeMappingSecrets(mappingSecrets),
        changes: describeChangeSources(changeSources, changeSecrets),
      }),
    );
    options.onListening?.(server.url);
    await new Promise<void>((resolveStop) => {
      const remove = io.onInterrupt(() => {
        remove();
        resolveStop();
      });
    });
    say('stopping: no new requests; waiting for the runs this server started to end (Ctrl-C again stops at once)');
    const again = io.onInterrupt(() => process.exit(EXIT.INTERRUPTED));
    try {
      await server.close();
      // NOTE: Slack work in flight may start runs; their ends bring the cards' last updates.
      await slack?.settle();
      await workflow.idle();
      await slack?.settle();
    } finally {
      again();
    }
    return EXIT.OK;
  } finally {
    const stopped = await slack?.close();
    if (stopped !== undefined && stopped.dropped > 0) {
      say(`slack: ${stopped.dropped} work item(s) waiting out Slack's Retry-After or a redelivery were dropped`);
    }
    await close?.();
    await runtime.stop();
  }
}

function describeServe(context: {
  url: string;
  routes: readonly ServeRoute[];
  options: ServeOptions;
  settings: ReturnType<typeof buildLocalSettings>;
  trigger: TriggerSettings;
  loopback: boolean;
  logPath: string;
  runtime: { endpoint: string; tableName: string };
  dataDir: string;
  slack: string[];
  mappingSecrets: string | null;
  changes: string | null;
}): string {
  const { url, routes, options, settings, trigger, loopback } = context;
  const policy = settings.TENANT_ACCESS;
  const secretWord = (set: boolean, name: string) => (set ? 'set' : `unset: refuses every request (set ${name})`);
  const mapped = new Set(trigger.TRIGGERS.map((mapping) => mapping.source));
  return [
    `serving the deployed API at ${url} (Ctrl-C stops)`,
    ...routes.map(
      (route) =>
        `  ${`${route.method} ${route.path}`.padEnd(30)} ${route.functionName}${route.auth === 'iam' ? '  (IAM)' : ''}`,
    ),
    `identity: no request is signed here; every IAM route's caller is ${options.principal.userArn}`,
    loopback
      ? `  (--principal sets it; one request may name another in the X-Diagnosis-Local-Principal header, loopback only)`
      : '  (bound beyond loopback: the X-Diagnosis-Local-Principal header is refused; anyone who reaches this port is that caller)',
    `TENANT_ACCESS: ${policy === undefined ? 'unset — every caller may use every enterprise' : `${policy.length} rule(s), matched against that ARN as deployed`}`,
    `webhooks (${stageFileName(options.stage)} maps ${mapped.size === 0 ? 'no source' : [...mapped].join(', ')}): alertmanager token ${secretWord(trigger.ALERTMANAGER_WEBHOOK_TOKEN !== undefined, 'ALERTMANAGER_WEBHOOK_TOKEN')}; pagerduty secrets ${secretWord(trigger.PAGERDUTY_WEBHOOK_SECRETS !== undefined, 'PAGERDUTY_WEBHOOK_SECRETS')}`,
    ...(context.mappingSecrets === null ? [] : [context.mappingSecrets]),
    ...(context.changes === null ? [] : [context.changes]),
    ...context.slack,
    `runs: the local DiagnosisWorkflow → Diagnose, model ${settings.DIAGNOSIS_MODEL_BASE_URL}; DynamoDB at ${context.runtime.endpoint}, table ${context.runtime.tableName}; knowledge and logs from examples/; ${settings.MYSQL_URL === undefined ? 'query_mysql answers NOT_CONFIGURED' : 'MySQL from MYSQL_URL'}`,
    `the functions' log lines: ${context.logPath}`,
    `try: curl -s -X POST ${url}/diagnoses -H 'content-type: application/json' -d '{"enterpriseId":"E1001","sessionId":"s1","query":"E1001 的订单从 14:05 开始大量失败，为什么？"}'`,
  ].join('\n');
}
