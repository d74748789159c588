import { CliError, type Command, EXIT, usageError } from '../command-line.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

/** `diagnosis change <event.json>`: one change through the real change functions, recorded on this machine. */
export const changeCommand: Command = {
  name: 'change',
  summary: 'record a deploy, config, flag or infrastructure change from an event file',
  synopsis: '<event.json> [options]',
  description: [
    "Hands the change to the real change functions, mapped by the stage file's changes.sources (docs/changes.md): a",
    "change webhook's body (the generic body, a Flux event) or GitHub's deployment_status, signed here as its sender",
    'signs (this command makes up the secrets), goes to ChangeWebhook; a CloudTrail call as EventBridge delivers it',
    'to ChangeEvents. It is recorded once on DynamoDB Local, where later local runs of its enterprise read it with',
    'query_logs (service changes). Examples of every source: examples/changes/.',
  ],
  arguments: [['<event.json>', 'the change as its sender sends it (examples/changes/argocd-sync.json)']],
  options: [
    {
      name: 'stage',
      type: 'string',
      value: '<name>',
      description: 'the stage file whose changes.sources map it (deploy/<name>.json, or a path ending in .json)',
      default: 'examples/changes/stage.json',
    },
    {
      name: 'source',
      type: 'string',
      value: '<id>',
      description: 'the change webhook a body goes to, when several take its service',
    },
    {
      name: 'received-at',
      type: 'string',
      value: '<iso>',
      description: 'when the change arrives; default: a second after it landed',
    },
    { name: 'now', type: 'boolean', description: 'the change arrives now (this machine’s clock)' },
    { name: 'json', type: 'boolean', description: 'print only the answer: HTTP status, outcome, change id or code' },
  ],
  examples: [
    'diagnosis change examples/changes/argocd-sync.json',
    'diagnosis change examples/changes/unleash-flag.json --source flags-e1001',
    'diagnosis change examples/changes/cloudtrail-lambda-config.json --json',
  ],
  exitCodes: [
    [EXIT.OK, 'the change was recorded, was a duplicate, or was ignored (said why)'],
    [EXIT.FAILED, 'the change function refused it (too old, bad body)'],
    [EXIT.USAGE, 'bad usage, or a file that is not a change of a known sender'],
    [EXIT.UNAVAILABLE, 'no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT'],
    [EXIT.CONFIG, 'invalid change sources in the stage file, or none'],
  ],
  settings: [...STORE_SETTINGS],
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw usageError('one event file: diagnosis change <event.json>');
    if (values['received-at'] !== undefined && values.now === true) {
      throw usageError('--received-at or --now, not both');
    }
    let receivedAt: number | undefined;
    if (values['received-at'] !== undefined) {
      const text = String(values['received-at']);
      receivedAt = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : Number.NaN;
      if (!Number.isFinite(receivedAt)) {
        throw new CliError(EXIT.USAGE, '--received-at is an ISO 8601 time, e.g. 2026-11-30T06:07:00Z');
      }
    }
    if (values.now === true) receivedAt = Date.now();
    const { runLocalChange } = await import('../local/run-local-change.ts');
    return runLocalChange(
      {
        eventPath: positionals[0] ?? '',
        stage: String(values.stage ?? 'examples/changes/stage.json'),
        ...(values.source === undefined ? {} : { source: String(values.source) }),
        ...(receivedAt === undefined ? {} : { receivedAt }),
        json: values.json === true,
      },
      io,
    );
  },
};
