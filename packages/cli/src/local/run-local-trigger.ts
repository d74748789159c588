/**
 * One alarm or webhook event on this machine through the real Trigger functions: the event goes to the Trigger
 * handler (CloudWatch) or the webhook handler (Alertmanager with a local bearer token, PagerDuty signed with a local
 * secret), the stage file's `triggers` map it, and a started run is executed by the real Diagnose function (the
 * workflow's local stand-in) on DynamoDB Local and the example world; then the run's result is shown.
 * NOTE: over 300 lines on purpose: one event through the real Trigger functions on this machine, from the stage file's
 * mapping to the report of the run it started.
 */
import { createHmac, randomBytes } from 'node:crypto';
import {
  DEFAULT_RUN_LIMITS,
  DEVELOPMENT_MASKING_SECRET,
  type DiagnosisResult,
  loadRunEvidence,
  resultOfStoredRun,
  statusWordOf,
  teeAuditStore,
} from '@diagnosis/core';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { createDynamoIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import { createLocalDiagnosisWorkflow, lambdaContext } from '@diagnosis/devkit';
import {
  buildRunFinishedEvent,
  buildTriggerDeps,
  createLocalDiagnose,
  createObservability,
  createTriggerHandler,
  createWebhookHandler,
  previewDeliveries,
  type RevealOutcome,
  revealForDestination,
  type WebhookAnswer,
} from '@diagnosis/functions';
import { CliError, type CliIo, EXIT, printable } from '../command-line.ts';
import { createLiveView } from '../live/live-view.ts';
import { renderReport } from '../render/render-report.ts';
import { localLogDestination } from './local-data.ts';
import { startLocalRuntime } from './local-runtime.ts';
import { buildLocalSettings } from './local-settings.ts';
import { startLocalSlack } from './local-slack.ts';
import { parseSlackPostUrl, postSlack, previewHeading } from './post-slack.ts';
import { loadStageDelivery, loadStageTriggers, stageFileName } from './stage-file.ts';
import { loadEventFile, sentAt } from './trigger-event-file.ts';

export { parseSlackPostUrl } from './post-slack.ts';

export interface LocalTriggerOptions {
  eventPath: string;
  /** The stage file whose `triggers` map the event (deploy/<stage>.json). */
  stage: string;
  /** When the event is taken to arrive (epoch ms); undefined: when its sender sent it. */
  receivedAt?: number;
  timeoutSeconds: number;
  json: boolean;
  /** Settings the command decides over the user's environment (the demo's scripted model). */
  settings?: Record<string, string>;
  banner?: string;
  /** A Slack incoming webhook URL to post the run's Slack message to (https, or http on this machine only). */
  postSlackUrl?: string;
  /**
   * The Slack app's conversation against a loopback Slack: the run's card posted and updated, a rating click, a
   * follow-up question in the card's thread answered there (see local-slack.ts).
   */
  slack?: boolean;
  /** What to do for a new run when the event attaches to its incident's run (default: `trigger`'s own options). */
  newRunHints?: readonly string[];
  /**
   * Called as the event is handed to the Trigger handler, after the command's own setup (the local runtime, the
   * functions composed): where a deployed, warm Trigger function's work starts (bench/alarm-to-message.ts).
   */
  onEventSent?: () => void;
}

/** Runs the event and returns the exit code: a started run's (0, 2 fallback, 1 failed), else 0. */
export async function runLocalTrigger(options: LocalTriggerOptions, io: CliIo): Promise<number> {
  const say = (text: string) => {
    if (!options.json) io.stderr(`${text}\n`);
  };
  const event = loadEventFile(options.eventPath);
  const mappings = loadStageTriggers(options.stage);
  if (options.postSlackUrl !== undefined) parseSlackPostUrl(options.postSlackUrl);
  const receivedAt = options.receivedAt ?? sentAt(event.json, event.source);
  const runtime = await startLocalRuntime(io.env);
  try {
    const settings = buildLocalSettings(io.env, runtime, options.settings);
    const log = localLogDestination(io.env);
    const live = options.json ? undefined : createLiveView({ write: io.stderr, spinner: io.stderrIsTTY });
    const { invoke, dynamo, close } = await createLocalDiagnose(settings, {
      ...createObservability('Diagnose', log.write),
      context: () => lambdaContext(options.timeoutSeconds * 1_000),
      wrapStore: (store) =>
        teeAuditStore(store, {
          onModelStep: (step) => live?.listener.onModelStep?.(step),
          onToolInvocation: (tool) => live?.listener.onToolInvocation?.(tool),
        }),
    });
    // The deployed DiagnosisWorkflow's definition, run here against this Diagnose (busy: its retriers; failed: the run
    // closed as the deployed rule closes it).
    const workflow = createLocalDiagnosisWorkflow({
      invoke,
      store: createDynamoRunStore({ client: dynamo, tableName: runtime.tableName }),
      logger: createObservability('OnWorkflowStopped', log.write).logger,
      invocationTimeoutMs: options.timeoutSeconds * 1_000,
    });
    // NOTE: the webhook secrets are made up for this one command: the event is signed here, as its sender would.
    const token = randomBytes(24).toString('hex');
    const secret = randomBytes(24).toString('hex');
    const triggerSettings = parseTriggerSettings({
      DIAGNOSIS_TABLE_NAME: runtime.tableName,
      DYNAMODB_ENDPOINT: runtime.endpoint,
      TRIGGERS: JSON.stringify(mappings),
      DIAGNOSIS_TIMEZONE: settings.DIAGNOSIS_TIMEZONE,
      TRIGGER_QUIET_PERIOD_SECONDS: String(settings.TRIGGER_QUIET_PERIOD_SECONDS),
      TRIGGER_LOOKBACK_MINUTES: String(settings.TRIGGER_LOOKBACK_MINUTES),
      ALERTMANAGER_WEBHOOK_TOKEN: token,
      PAGERDUTY_WEBHOOK_SECRETS: secret,
      // The sender's texts are masked as the run's evidence is (issue 32, item 10).
      MASKING: settings.MASKING,
      MASKING_PATTERNS: JSON.stringify(settings.MASKING_PATTERNS ?? []),
      MASKING_EXCLUSIONS: JSON.stringify(settings.MASKING_EXCLUSIONS ?? []),
      ...(settings.MASKING_SECRET === undefined ? {} : { MASKING_SECRET: settings.MASKING_SECRET }),
    });
    const built = await buildTriggerDeps(triggerSettings, () => receivedAt, undefined, workflow);
    const deps = { ...built, start: { ...built.start, workflow } };
    if (options.banner !== undefined) say(options.banner);
    say(
      `${event.source} event from ${printable(options.eventPath)}, received at ${new Date(receivedAt).toISOString()}; mappings from ${stageFileName(options.stage)}; DynamoDB at ${runtime.endpoint}, table ${runtime.tableName}`,
    );
    const localSlack =
      options.slack === true
        ? await startLocalSlack({
            enterpriseIds: mappings.map((mapping) => mapping.enterpriseId),
            client: runtime.client,
            tableName: runtime.tableName,
            runs: createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName }),
            workflow,
            maskingSecret: settings.MASKING_SECRET,
            print: (line) => io.stderr(`${line}\n`),
          })
        : undefined;
    let answer: WebhookAnswer;
    try {
      answer = await invokeTrigger(event, deps, { token, secret }, log.write, options.onEventSent);
      if (localSlack !== undefined && answer.outcome === 'STARTED') localSlack.follow(answer.runId);
      await workflow.idle();
      if (localSlack !== undefined && answer.outcome === 'STARTED') {
        await localSlack.settle();
        await localSlack.rate(answer.runId, 'rate_correct');
        const followUp = await localSlack.askInThread(answer.runId, '数据库那边呢？and the database?');
        if (followUp !== null) {
          await workflow.idle();
          await localSlack.settle();
        }
        const calls = localSlack.calls();
        say(
          `slack: ${calls.length} Web API calls (${calls.filter((call) => call.method === 'chat.update').length} updates, ${calls.filter((call) => call.status === 429).length} answered 429) against the loopback Slack${followUp === null ? '' : `; follow-up run ${followUp}`}`,
        );
      }
    } finally {
      live?.stop();
      await close();
      await localSlack?.close();
    }
    return await report(answer, { runtime, settings, options, io, say, receivedAt });
  } finally {
    await runtime.stop();
  }
}

async function invokeTrigger(
  event: ReturnType<typeof loadEventFile>,
  deps: Parameters<typeof createTriggerHandler>[0],
  secrets: { token: string; secret: string },
  log: (line: string) => void,
  onEventSent: () => void = () => undefined,
): Promise<WebhookAnswer> {
  if (event.source === 'cloudwatch') {
    const handler = createTriggerHandler(deps, createObservability('Trigger', log));
    onEventSent();
    return await handler(event.json, lambdaContext(30_000));
  }
  const handler = createWebhookHandler(
    { ...deps, secrets: { alertmanagerToken: secrets.token, pagerdutySecrets: [secrets.secret] } },
    createObservability('TriggerWebhook', log),
  );
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (event.source === 'alertmanager') headers.authorization = `Bearer ${secrets.token}`;
  else headers['x-pagerduty-signature'] = `v1=${createHmac('sha256', secrets.secret).update(event.raw).digest('hex')}`;
  onEventSent();
  const response = (await handler(
    {
      version: '2.0',
      routeKey: 'POST /triggers/{source}',
      rawPath: `/triggers/${event.source}`,
      rawQueryString: '',
      headers,
      requestContext: { http: { method: 'POST', path: `/triggers/${event.source}` } },
      pathParameters: { source: event.source },
      body: event.raw,
      isBase64Encoded: false,
    } as never,
    lambdaContext(30_000),
  )) as { statusCode: number; body: string };
  const body = JSON.parse(response.body) as WebhookAnswer & { error?: { code: string; message: string } };
  if (response.statusCode === 200 && body.outcome === 'DUPLICATE') return body;
  if (response.statusCode !== 202) {
    throw new CliError(EXIT.FAILED, `the webhook refused the event: ${body.error?.code ?? response.statusCode}`);
  }
  return body;
}

/** What each IGNORED code means, for the line that says nothing started. */
const ignoredWords: Record<string, string> = {
  NOT_FIRING: 'the event is not a firing alarm or a triggered incident',
  UNMAPPED: "no mapping of the stage file's triggers matches it",
  STALE: 'it is older than the lookback (TRIGGER_LOOKBACK_MINUTES): give --now or --received-at',
  MALFORMED_EVENT: 'its sender’s fields are not as documented',
};

const revealWords: Record<RevealOutcome, string> = {
  MASKED: 'masked',
  REVEALED: 'with the real values behind the pseudonyms',
  PSEUDONYM_MAP_UNREADABLE: 'masked: the pseudonym map does not open with this MASKING_SECRET',
  PSEUDONYM_MAP_INCOMPLETE: 'masked where the pseudonym map has no entry',
};

async function report(
  answer: WebhookAnswer,
  context: {
    runtime: Awaited<ReturnType<typeof startLocalRuntime>>;
    settings: ReturnType<typeof buildLocalSettings>;
    options: LocalTriggerOptions;
    io: CliIo;
    say: (text: string) => void;
    receivedAt: number;
  },
): Promise<number> {
  const { runtime, settings, options, io, say, receivedAt } = context;
  const nothingPosted = options.postSlackUrl === undefined ? '' : ', so --post-slack posted nothing';
  if (answer.outcome === 'IGNORED') {
    if (options.json) io.stdout(`${JSON.stringify({ trigger: answer }, null, 2)}\n`);
    say(`started NO run (${answer.code}: ${ignoredWords[answer.code] ?? 'ignored'})${nothingPosted}.`);
    return EXIT.OK;
  }
  if (answer.outcome === 'DUPLICATE') {
    if (options.json) io.stdout(`${JSON.stringify({ trigger: answer }, null, 2)}\n`);
    say('the webhook had received this very event already (answered 200 DUPLICATE); nothing written');
    return EXIT.OK;
  }
  const store = createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName });
  const run = await store.getRun(answer.runId);
  if (run === null) throw new CliError(EXIT.FAILED, `run ${answer.runId} is not in the table`);
  if (answer.outcome === 'ATTACHED') {
    // NOTE: read only here: a started run's report does not show its incident's events.
    const incidents = createDynamoIncidentStore({ client: runtime.client, tableName: runtime.tableName });
    const incidentEvents = await incidents.listIncidentEvents(run.runId);
    const attached = `the event attached to run ${run.runId} (${statusWordOf(run.status)}) of the same incident, as its event ${answer.sequence} (${answer.kind}; ${incidentEvents.length} attached so far)`;
    // NOTE: stdout says what happened too (an empty stdout read as "nothing happened"); --json says it as JSON.
    if (options.json)
      io.stdout(`${JSON.stringify({ trigger: answer, run: { runId: run.runId, status: run.status } }, null, 2)}\n`);
    else io.stdout(`no new run: ${attached}\n`);
    say(
      [
        `started NO run: ${attached}${nothingPosted}.`,
        `An event of an incident attaches while its run is open or within TRIGGER_QUIET_PERIOD_SECONDS (${settings.TRIGGER_QUIET_PERIOD_SECONDS} s) of its last event, counted in the events' own time (this one: ${new Date(receivedAt).toISOString()}). For a new run:`,
        ...(options.newRunHints ?? [
          '  add --now: the event arrives now, a re-fire after the quiet period (its window ends now)',
          '  or use a fresh data folder, where this incident is new: DIAGNOSIS_LOCAL_DATA=$(mktemp -d) npx diagnosis trigger …',
        ]),
        `look at the incident's run: npx diagnosis trace ${run.runId}`,
      ].join('\n'),
    );
    return EXIT.OK;
  }
  const result: DiagnosisResult = resultOfStoredRun(run);
  const evidence = (await loadRunEvidence(store, run))?.evidence ?? null;
  const { destinations, reveal } = loadStageDelivery(options.stage, run.enterpriseId);
  let previews: ReturnType<typeof previewDeliveries> = [];
  let revealed: RevealOutcome = 'MASKED';
  if (run.status !== 'QUEUED' && run.status !== 'RUNNING') {
    const event = buildRunFinishedEvent({ ...run, status: run.status });
    // NOTE: what DeliverResults would send: the real values only when the stage file opts this enterprise in, read
    // from this run's map in the local table with the secret the local run masked with.
    const shown = await revealForDestination(
      event.detail,
      run.enterpriseId,
      reveal
        ? {
            enterprises: new Set([run.enterpriseId]),
            pseudonyms: store,
            secret: settings.MASKING_SECRET ?? DEVELOPMENT_MASKING_SECRET,
          }
        : undefined,
    );
    revealed = shown.outcome;
    previews = previewDeliveries({ ...event, detail: shown.detail }, destinations, Date.now());
  }
  if (options.json) {
    const posted = options.postSlackUrl === undefined ? undefined : await postSlack(options.postSlackUrl, previews);
    const deliveries = previews.map(({ text: _text, ...preview }) => preview);
    io.stdout(
      `${JSON.stringify({ trigger: answer, run: { runId: run.runId, query: run.query, trigger: run.trigger, window: run.window }, result, evidence, deliveries, reveal: revealed, ...(posted === undefined ? {} : { posted }) }, null, 2)}\n`,
    );
  } else {
    say(`run ${run.runId}  session ${run.sessionId}${answer.continued ? ' (continues the incident’s last run)' : ''}`);
    say(`question (written by the system): ${run.query}`);
    if (run.window !== null) say(`incident window (UTC): ${run.window.from} – ${run.window.to}`);
    io.stdout(
      `\n${renderReport(result, { modelBaseUrl: settings.DIAGNOSIS_MODEL_BASE_URL, judgeBaseUrl: settings.SEMANTIC_GUARD_MODEL_BASE_URL, modelTimeoutMs: settings.DIAGNOSIS_MODEL_TIMEOUT_MS ?? DEFAULT_RUN_LIMITS.modelRequestTimeoutMs }, evidence ?? undefined)}\n`,
    );
    say(
      destinations.length > 0
        ? `\nwhat each of ${run.enterpriseId}'s destinations in ${stageFileName(options.stage)} would receive:`
        : `\n${stageFileName(options.stage)} names no destination for ${run.enterpriseId}; a Slack destination would receive:`,
    );
    if (reveal) say(`(delivery.reveal: ${revealWords[revealed]})`);
    for (const preview of previews) io.stdout(`\n${previewHeading(preview)}\n${preview.text}\n`);
    if (options.postSlackUrl !== undefined) {
      const posted = await postSlack(options.postSlackUrl, previews);
      say(`posted the Slack message to ${posted.origin}: HTTP ${posted.status}`);
    }
    say(`look at this run: npx diagnosis trace ${run.runId}`);
  }
  return result.status === 'PUBLISHED' ? EXIT.OK : result.status === 'FALLBACK' ? EXIT.FALLBACK : EXIT.FAILED;
}
