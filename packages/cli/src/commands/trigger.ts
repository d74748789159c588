import { CliError, type Command, EXIT, type OptionSpec, usageError, wholeNumberOption } from '../command-line.ts';
import { DIAGNOSIS_SETTINGS, MASKING_SETTINGS, STORE_SETTINGS } from '../setting-keys.ts';

const TIMEOUT: OptionSpec = {
  name: 'timeout',
  type: 'string',
  value: '<seconds>',
  description: "the run's invocation time",
  default: '300',
  range: [1, 900],
};

/** `diagnosis trigger <event.json>`: an alarm or webhook event through the real Trigger functions, on this machine. */
export const triggerCommand: Command = {
  name: 'trigger',
  summary: 'run the Trigger function on a CloudWatch, Alertmanager or PagerDuty event file',
  synopsis: '<event.json> [options]',
  description: [
    'Hands the event to the real Trigger function (a CloudWatch Alarm State Change) or webhook function (Alertmanager',
    'v4 with a bearer token, PagerDuty v3 signed over its body; this command makes up the secret and signs), mapped by',
    "the stage file's triggers: one run per incident, later events attached, the question and the incident window set",
    'by code. A started run is executed by the real Diagnose function on DynamoDB Local and the example world; then',
    "what each of the enterprise's destinations in the stage file would receive is shown (Slack rendered for the",
    'terminal, SNS, the signed webhook request), built by the deployed delivery code.',
  ],
  arguments: [['<event.json>', 'the event as its sender sends it (examples/triggers/cloudwatch-alarm.json)']],
  options: [
    {
      name: 'stage',
      type: 'string',
      value: '<name>',
      description: 'the stage file whose triggers map the event (deploy/<name>.json, or a path ending in .json)',
      default: 'default',
    },
    {
      name: 'received-at',
      type: 'string',
      value: '<iso>',
      description: 'when the event arrives (the window ends then); default: when its sender sent it',
    },
    { name: 'now', type: 'boolean', description: 'the event arrives now (this machine’s clock)' },
    {
      name: 'scripted-model',
      type: 'boolean',
      description: "answer with the demo's scripted alarm conversation (no key needed; its claims fit the window)",
    },
    TIMEOUT,
    {
      name: 'post-slack',
      type: 'string',
      value: '<url>',
      description: 'also post the Slack message to this incoming webhook URL (https; http only to this machine)',
    },
    {
      name: 'slack',
      type: 'boolean',
      description:
        "the Slack app's conversation against a loopback Slack: the card posted and updated, a rating, a follow-up in its thread",
    },
    { name: 'json', type: 'boolean', description: 'print only the outcome, the run, its result and the previews' },
  ],
  examples: [
    'diagnosis trigger examples/triggers/cloudwatch-alarm.json --scripted-model',
    'diagnosis trigger my-alertmanager-payload.json --stage dev --now',
    'diagnosis trigger examples/triggers/cloudwatch-alarm.json --scripted-model --slack',
    'diagnosis trigger examples/triggers/cloudwatch-alarm.json --scripted-model --post-slack https://hooks.slack.com/services/…',
  ],
  exitCodes: [
    [EXIT.OK, 'the started run was published, or the event was attached to a run or started none (said)'],
    [EXIT.FAILED, 'the started run FAILED, or a webhook refused the event'],
    [EXIT.FALLBACK, 'the started run ended with a FALLBACK report'],
    [EXIT.USAGE, 'bad usage, a file that is not an event of a known sender, or a bad --post-slack URL'],
    [
      EXIT.UNAVAILABLE,
      'no model key (without --scripted-model), or no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT',
    ],
    [EXIT.CONFIG, 'an invalid or misspelt setting, or invalid triggers or destinations in the stage file'],
  ],
  settings: [...DIAGNOSIS_SETTINGS, ...MASKING_SETTINGS, ...STORE_SETTINGS],
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw usageError('one event file: diagnosis trigger <event.json>');
    const timeoutSeconds = wholeNumberOption(TIMEOUT, values.timeout) as number;
    let receivedAt: number | undefined;
    if (values['received-at'] !== undefined && values.now === true)
      throw usageError('--received-at or --now, not both');
    if (values['received-at'] !== undefined) {
      const text = String(values['received-at']);
      receivedAt = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
      if (!Number.isFinite(receivedAt))
        throw usageError('--received-at is an ISO 8601 time, e.g. 2026-11-30T06:07:00Z');
    }
    if (values.now === true) receivedAt = Date.now();
    const scripted = values['scripted-model'] === true;
    if (!scripted && (io.env.DIAGNOSIS_MODEL_API_KEY ?? '') === '') {
      throw new CliError(EXIT.UNAVAILABLE, 'no model key: set DIAGNOSIS_MODEL_API_KEY, or add --scripted-model');
    }
    const { parseSlackPostUrl, runLocalTrigger } = await import('../local/run-local-trigger.ts');
    const postSlackUrl = values['post-slack'] === undefined ? undefined : String(values['post-slack']);
    if (postSlackUrl !== undefined) parseSlackPostUrl(postSlackUrl);
    const common = {
      eventPath: positionals[0] ?? '',
      stage: String(values.stage ?? 'default'),
      ...(receivedAt === undefined ? {} : { receivedAt }),
      timeoutSeconds,
      json: values.json === true,
      ...(postSlackUrl === undefined ? {} : { postSlackUrl }),
      ...(values.slack === true ? { slack: true } : {}),
    };
    if (!scripted) return runLocalTrigger(common, io);
    const { runScriptedTrigger } = await import('../local/run-scripted-trigger.ts');
    return runScriptedTrigger(common, io);
  },
};
