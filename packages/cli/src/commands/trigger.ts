import { CliError, type Command, EXIT, usageError, wholeNumber } from '../command-line.ts';

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
      description: "answer with the demo's scripted conversation (no key needed)",
    },
    {
      name: 'timeout',
      type: 'string',
      value: '<seconds>',
      description: "the run's invocation time, 1-900",
      default: '300',
    },
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
    [EXIT.FAILED, 'the started run FAILED, or a webhook refused the event'],
    [EXIT.FALLBACK, 'the started run ended with a FALLBACK report'],
    [EXIT.USAGE, 'bad usage, or a file that is not an event of a known sender'],
    [EXIT.UNAVAILABLE, 'no model key (without --scripted-model), or no DynamoDB'],
    [EXIT.CONFIG, 'an invalid setting, or invalid triggers in the stage file'],
  ],
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw usageError('one event file: diagnosis trigger <event.json>');
    const timeoutSeconds = wholeNumber('timeout', String(values.timeout ?? '300'), 1, 900);
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
    return runScriptedTrigger(common, io);
  },
};

/** The trigger with the demo's scripted model on a loopback server (the SemanticGuard in enforce, as deployed). */
export async function runScriptedTrigger(
  options: Omit<Parameters<typeof import('../local/run-local-trigger.ts').runLocalTrigger>[0], 'settings' | 'banner'>,
  io: Parameters<Command['run']>[1],
): Promise<number> {
  const { loadScriptedConversation, startDeepSeekServer } = await import('@diagnosis/devkit');
  const { runLocalTrigger } = await import('../local/run-local-trigger.ts');
  const conversation = loadScriptedConversation();
  // With --slack, a follow-up run asks the model too: the same scripted conversation answers it.
  const times = options.slack === true ? 2 : 1;
  const server = await startDeepSeekServer(
    Array.from({ length: times }, () => conversation.responses).flat(),
    Array.from({ length: times }, () => conversation.judgeResponses).flat(),
  );
  try {
    return await runLocalTrigger(
      {
        ...options,
        settings: {
          DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
          DIAGNOSIS_MODEL_API_KEY: 'scripted-demo-no-key',
          DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
          SEMANTIC_GUARD: 'enforce',
        },
        banner:
          "SCRIPTED model: a loopback server answers with the demo's hand-written conversation (examples/demo/e1001-scripted-conversation.json); everything else is real.",
      },
      io,
    );
  } finally {
    await server.close();
  }
}
