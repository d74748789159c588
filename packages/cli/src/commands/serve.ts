import {
  CliError,
  type Command,
  EXIT,
  type OptionSpec,
  printable,
  usageError,
  wholeNumberOption,
} from '../command-line.ts';
import { DIAGNOSIS_SETTINGS, MASKING_SETTINGS, STORE_SETTINGS } from '../setting-keys.ts';

const PORT: OptionSpec = {
  name: 'port',
  type: 'string',
  value: '<port>',
  description: 'the port (0: any free one)',
  default: '8787',
  range: [0, 65_535],
};
const TIMEOUT: OptionSpec = {
  name: 'timeout',
  type: 'string',
  value: '<seconds>',
  description: "a run's invocation time",
  default: '300',
  range: [1, 900],
};

/** `diagnosis serve`: the deployed HTTP API on this machine, for curl, Alertmanager or a PagerDuty test webhook. */
export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the deployed API (POST /diagnoses, /runs/…, /triggers/…, /slack/…) on this machine',
  synopsis: '[options]',
  description: [
    "Serves the InternalApi's routes over HTTP — POST /diagnoses, GET /runs/{runId} and its audit, reasoning and",
    'reveal, POST /runs/{runId}/cancel and /feedback, POST /triggers/{source} — each handled by the real function,',
    'given the API Gateway HTTP API event (payload 2.0) a deployment gives it. Runs start in the local',
    "DiagnosisWorkflow (the deployed definition) and run the Diagnose function on this data folder's DynamoDB Local",
    'and the example world. No request is signed: every IAM route is called as the local principal (--principal),',
    'matched by TENANT_ACCESS as a deployed caller is. Loopback only, unless --allow-non-loopback.',
    'A stage file with Slack apps adds POST /slack/{appId}/{kind}: the real SlackRequests and SlackWork functions,',
    "each app's bot token and signing secret read from the variables named as the stage file names its secrets",
    "(SlackE1001BotToken=xoxb-…), the Web API at SLACK_API_URL (default: Slack's own); see docs/chat.md.",
  ],
  options: [
    PORT,
    {
      name: 'host',
      type: 'string',
      value: '<address>',
      description: 'the address to bind; anything but loopback needs --allow-non-loopback',
      default: '127.0.0.1',
    },
    {
      name: 'allow-non-loopback',
      type: 'boolean',
      description: 'bind beyond this machine: whoever reaches the port acts as the local principal',
    },
    {
      name: 'principal',
      type: 'string',
      value: '<arn>',
      description: 'the IAM caller of every IAM route (an IAM user/role or STS assumed-role ARN)',
      default: 'arn:aws:iam::000000000000:user/local-operator',
    },
    {
      name: 'stage',
      type: 'string',
      value: '<name>',
      description: 'the stage file (deploy/<name>.json, or a path ending in .json): its triggers and Slack apps',
      default: 'default',
    },
    {
      name: 'scripted-model',
      type: 'boolean',
      description: "answer every run with the demo's scripted conversation (no key needed)",
    },
    TIMEOUT,
  ],
  examples: [
    'diagnosis serve --scripted-model',
    'curl -s -X POST localhost:8787/diagnoses -H \'content-type: application/json\' -d \'{"enterpriseId":"E1001","sessionId":"s1","query":"…"}\'',
    'curl -s localhost:8787/runs/<runId>',
    'ALERTMANAGER_WEBHOOK_TOKEN=… diagnosis serve   # Alertmanager: url http://127.0.0.1:8787/triggers/alertmanager',
  ],
  exitCodes: [
    [EXIT.OK, 'stopped with Ctrl-C (or SIGTERM) once the runs it started had ended'],
    [EXIT.USAGE, 'bad usage: a bad port, principal, address or stage, or a non-loopback address without the flag'],
    [
      EXIT.UNAVAILABLE,
      'no model key (without --scripted-model), the port is taken, or no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT',
    ],
    [
      EXIT.CONFIG,
      'an invalid or misspelt setting (a Slack or webhook secret too), or invalid triggers or Slack apps in the stage file',
    ],
    [EXIT.INTERRUPTED, 'Ctrl-C again, a second or more after the first: stopped at once, not waiting for the runs'],
  ],
  settings: [
    ...DIAGNOSIS_SETTINGS,
    ...STORE_SETTINGS,
    ...MASKING_SETTINGS,
    'PAST_INCIDENT_RETENTION_DAYS',
    'TENANT_ACCESS',
    'ALERTMANAGER_WEBHOOK_TOKEN',
    'PAGERDUTY_WEBHOOK_SECRETS',
    'SLACK_API_URL',
    'SLACK_TIMEOUT_MS',
  ],
  async run({ values, positionals }, io) {
    if (positionals.length > 0) throw usageError(`serve takes no arguments, not '${printable(positionals[0] ?? '')}'`);
    const port = wholeNumberOption(PORT, values.port) as number;
    const timeoutSeconds = wholeNumberOption(TIMEOUT, values.timeout) as number;
    const host = String(values.host ?? '127.0.0.1');
    const { isLoopbackAddress } = await import('../serve/serve-server.ts');
    const { isIP } = await import('node:net');
    if (host !== 'localhost' && isIP(host) === 0) throw usageError(`--host is an IP address, not '${printable(host)}'`);
    if (!isLoopbackAddress(host) && values['allow-non-loopback'] !== true) {
      throw usageError(
        `--host ${printable(host)} is not loopback: IAM does not exist locally, so anyone who reaches it acts as the local principal; add --allow-non-loopback to mean it`,
      );
    }
    const { DEFAULT_LOCAL_PRINCIPAL, parseLocalPrincipal } = await import('../serve/local-principal.ts');
    const principalText = String(values.principal ?? DEFAULT_LOCAL_PRINCIPAL);
    const principal = parseLocalPrincipal(principalText);
    if (principal === null) {
      throw usageError(
        `--principal is an IAM ARN (arn:aws:iam::<account>:user/<name>, …:role/<name>, arn:aws:sts::<account>:assumed-role/<role>/<session>), not '${printable(principalText)}'`,
      );
    }
    const scripted = values['scripted-model'] === true;
    if (!scripted && (io.env.DIAGNOSIS_MODEL_API_KEY ?? '') === '') {
      throw new CliError(EXIT.UNAVAILABLE, 'no model key: set DIAGNOSIS_MODEL_API_KEY, or add --scripted-model');
    }
    const { runServe } = await import('../serve/run-serve.ts');
    const options = { host, port, principal, stage: String(values.stage ?? 'default'), timeoutSeconds };
    if (!scripted) return await listen(() => runServe(options, io));
    const { startScriptedModel } = await import('../serve/scripted-model.ts');
    const model = await startScriptedModel();
    try {
      return await listen(() => runServe({ ...options, settings: model.settings, banner: model.banner }, io));
    } finally {
      await model.close();
    }
  },
};

/** A port already taken is the user's to pick again, not a bug. */
async function listen(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'EADDRINUSE') throw new CliError(EXIT.UNAVAILABLE, 'the port is taken: pick another with --port');
    if (code === 'EADDRNOTAVAIL') throw new CliError(EXIT.USAGE, '--host is not an address of this machine');
    throw error;
  }
}
