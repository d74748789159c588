/**
 * The command line's traps of a newcomer's second hour (#47), through the bin's commands in process (a serving `serve`
 * in a child process): each refusal says what to do next, and each example works as printed. Every test here failed
 * before its fix: a `.env` made from `.env.example` with its secret lines uncommented was refused without naming
 * `--stage <file>`; a key copied as `sk-…` failed the run with a TypeError instead of a settings refusal; a stage
 * file's alertChannel outside its channels was refused naming neither the app nor the channel; `serve --help`'s curl
 * had no content-type (415); `runs` with a filter that matched nothing said "no runs yet"; a second `demo --alarm`
 * printed nothing on stdout and told the user to add `--now`, an option demo does not have.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import { startServeBin } from '../../support/cli-process.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const endpoint = inject('dynamodbEndpoint');
const tableName = `cli-refusals-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let dataDir: string;
let folder: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-refusals-'));
  folder = mkdtempSync(join(tmpdir(), 'diagnosis-cli-refusals-cwd-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(folder, { recursive: true, force: true });
});

const environment = (more: Record<string, string> = {}) => ({
  DIAGNOSIS_LOCAL_DATA: dataDir,
  DYNAMODB_ENDPOINT: endpoint,
  DIAGNOSIS_TABLE_NAME: tableName,
  ...more,
});

/** The Slack app and webhook mapping that give the secrets `.env.example` names. */
const STAGE_NAMING_THE_EXAMPLE_SECRETS = {
  triggers: [
    {
      source: 'alertmanager',
      labels: { team: 'payments' },
      enterpriseId: 'E1001',
      service: 'payment-gateway',
      secret: 'WebhookE1001Am',
    },
  ],
  slack: {
    apps: [
      {
        id: 'e1001',
        enterpriseId: 'E1001',
        teamId: 'T0E1001AA',
        channels: ['C0E1001AA'],
        botTokenSecret: 'SlackE1001BotToken',
        signingSecretSecret: 'SlackE1001SigningSecret',
      },
    ],
  },
};

describe('a .env made from .env.example with its secret lines uncommented', () => {
  it('is refused by serve naming each secret and the next step, --stage <file>, which then serves', async () => {
    const template = readFileSync(resolve(ROOT, '.env.example'), 'utf8');
    const dotEnv = template.replace(/^# ((?:Slack|Webhook)\w+=)/gm, '$1');
    expect(dotEnv.match(/^(Slack|Webhook)\w+=/gm)).toHaveLength(3);
    writeFileSync(join(folder, '.env'), dotEnv);
    try {
      const refused = await runInProcess(['serve', '--scripted-model', '--port', '0'], environment(), { cwd: folder });
      expect(refused).toMatchObject({
        code: 78,
        stdout: '',
        stderr:
          "diagnosis serve: unknown settings: WebhookE1001Am in .env; SlackE1001BotToken in .env; SlackE1001SigningSecret in .env; no stage file names them: a stage file's secrets are read from the variables it names (docs/triggers.md, docs/chat.md), so name the stage file that gives them with --stage <file> (this one read deploy/default.json), or comment the lines out\n",
      });
      const stage = join(folder, 'e1001-stage.json');
      writeFileSync(stage, JSON.stringify(STAGE_NAMING_THE_EXAMPLE_SECRETS));
      const server = await startServeBin(['--scripted-model', '--port', '0', '--stage', stage], environment(), {
        cwd: folder,
      });
      // NOTE: the banner may reach the pipe in more than one chunk: each line is waited for, never read at once.
      await server.stderrMatches(/mapping secrets: WebhookE1001Am set/);
      await server.stderrMatches(/slack app e1001 \(E1001, 1 channel\): .*SlackE1001BotToken/);
      expect(`${refused.stderr}${server.stderr()}`).not.toContain('another-long-random-token');
      expect(await server.stop()).toBe(0);
    } finally {
      rmSync(join(folder, '.env'), { force: true });
    }
  });
});

describe('a model key copied with characters HTTP cannot carry', () => {
  it('is refused as a setting before anything starts, naming the key, never its value (exit 78)', async () => {
    const finished = await runInProcess(
      ['diagnose', 'E1001 的订单从 14:05 开始大量失败，为什么？'],
      environment({ DIAGNOSIS_MODEL_API_KEY: 'sk-SECRET…' }),
    );
    expect(finished).toMatchObject({
      code: 78,
      stdout: '',
      stderr:
        'diagnosis diagnose: invalid settings: DIAGNOSIS_MODEL_API_KEY (printable ASCII, no spaces: what an HTTP header carries (a copied `…` is not)) (every setting and its form: docs/settings.md)\n',
    });
  });
});

describe('a model key copied with characters HTTP cannot carry, for eval --live', () => {
  it('is refused as a setting before any scenario starts (exit 78), not every scenario ending ERROR', async () => {
    const finished = await runInProcess(
      ['eval', '--live', '--only', 'cascade-migration-index'],
      environment({ DIAGNOSIS_MODEL_API_KEY: 'sk-SECRET…' }),
    );
    expect(finished).toMatchObject({
      code: 78,
      stdout: '',
      stderr:
        'diagnosis eval: invalid settings: DIAGNOSIS_MODEL_API_KEY (printable ASCII, no spaces: what an HTTP header carries (a copied `…` is not)) (every setting and its form: docs/settings.md)\n',
    });
  });
});

describe("a stage file's alertChannel outside its channels", () => {
  it('is refused naming its path, the app and the channel, and the fix (exit 78)', async () => {
    const stage = join(folder, 'alert-channel.json');
    const app = { ...STAGE_NAMING_THE_EXAMPLE_SECRETS.slack.apps[0], alertChannel: 'C0NOTMINE' };
    writeFileSync(stage, JSON.stringify({ slack: { apps: [app] } }));
    const finished = await runInProcess(['serve', '--scripted-model', '--stage', stage], environment());
    expect(finished).toMatchObject({
      code: 78,
      stderr: `diagnosis serve: ${stage}: invalid Slack app setting: slack.apps[0].alertChannel (app e1001's alertChannel C0NOTMINE is not one of its channels C0E1001AA: add it to channels, or name one of them)\n`,
    });
  });
});

describe("serve --help's example curl", () => {
  it('starts a run as printed (its content-type included): 202', async () => {
    const help = await runInProcess(['serve', '--help'], environment());
    const curl = help.stdout
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line.startsWith('curl -s -X POST') && line.includes('/diagnoses'));
    expect(curl).toBeDefined();
    const server = await startServeBin(['--scripted-model', '--port', '0'], environment());
    try {
      const printed = (curl as string).replace('localhost:8787', new URL(server.url).host);
      const status = execFileSync('bash', ['-c', `${printed} -o /dev/null -w '%{http_code}'`], { encoding: 'utf8' });
      expect(status).toBe('202');
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe('runs with a filter that matches nothing', () => {
  it('says the filter matched nothing, not that there are no runs yet', async () => {
    const finished = await runInProcess(['runs', '--enterprise', 'E9999'], environment());
    expect(finished).toMatchObject({
      code: 0,
      stdout: 'no run matches --enterprise E9999: diagnosis runs without it lists every run\n',
    });
  });
});

describe('demo --alarm twice on the same data', () => {
  it('says the second time that the alarm attached to the first run, and what to do for a new one (exit 0)', async () => {
    const first = await runInProcess(['demo', '--alarm'], environment());
    expect(first.code, first.stderr).toBe(0);
    const again = await runInProcess(['demo', '--alarm'], environment());
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(
      /^no new run: the event attached to run \w{26} \(PUBLISHED\) of the same incident, as its event 1 \(TRIGGERED; 1 attached so far\)\n$/,
    );
    expect(again.stderr).toContain('DIAGNOSIS_LOCAL_DATA=$(mktemp -d) npm run demo -- --alarm');
    expect(again.stderr).not.toContain('add --now');
    const help = await runInProcess(['demo', '--help'], environment());
    expect(help.stdout).toMatch(/^ {2}0 +the diagnosis was published; --alarm again on the same data: .*attached/m);
  });
});
