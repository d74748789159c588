// NOTE: over 300 lines on purpose: the diagnosis bin's commands, in process (runCommandLine) and in child processes
// for what only a process shows, on the one DynamoDB Local table and demo world set up at its start.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { RunRecord, StoredToolInvocation } from '@diagnosis/core/store';
import { createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type CliIo, COMMANDS, runCli } from '../../../packages/cli/src/index.ts';
import { runInProcess } from '../../support/cli-in-process.ts';
import { type Finished, runBin } from '../../support/cli-process.ts';
import { schemaErrors } from '../../support/json-schemas.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const endpoint = inject('dynamodbEndpoint');
const tableName = `cli-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let dataDir: string;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

/** The bin's command in process, on the test run's DynamoDB Local and this file's own table. */
function diagnosis(args: string[], environment: Record<string, string> = {}): Promise<Finished> {
  return diagnosisIn(ROOT, args, { DIAGNOSIS_TABLE_NAME: tableName, ...environment });
}

/** The bin's command in process, its working directory `directory` (where it reads a .env), on the test run's DynamoDB Local. */
function diagnosisIn(directory: string, args: string[], environment: Record<string, string> = {}): Promise<Finished> {
  return runInProcess(
    args,
    { DIAGNOSIS_LOCAL_DATA: dataDir, DYNAMODB_ENDPOINT: endpoint, ...environment },
    { cwd: directory },
  );
}

/**
 * The bin in a child process started in `directory`, on the test run's DynamoDB Local, for what only a process shows:
 * its own streams and exit code, its working directory, what it reads from its environment.
 */
function diagnosisProcess(
  args: string[],
  environment: Record<string, string> = {},
  directory = ROOT,
): Promise<Finished> {
  return runBin(
    args,
    { DIAGNOSIS_LOCAL_DATA: dataDir, DYNAMODB_ENDPOINT: endpoint, ...environment },
    { cwd: directory },
  );
}

describe('the diagnosis bin', () => {
  it('prints its own help listing every command, exit 0 (a child process)', async () => {
    const finished = await diagnosisProcess(['--help'], { DIAGNOSIS_TABLE_NAME: tableName });
    expect(finished.code).toBe(0);
    expect(finished.stdout).toMatch(/^usage: diagnosis <command> \[arguments\] \[options\]\n/);
    for (const name of ['diagnose', 'demo', 'trace', 'runs', 'cancel', 'eval']) {
      expect(finished.stdout).toMatch(new RegExp(`^ {2}${name} +\\S`, 'm'));
    }
    expect(finished.stderr).toBe('');
  });

  it('refuses an unknown command with one line on its stderr and exit 64, nothing on stdout (a child process)', async () => {
    const finished = await diagnosisProcess(['diagnoze'], { DIAGNOSIS_TABLE_NAME: tableName });
    expect(finished).toMatchObject({ code: 64, signal: null, stdout: '' });
    expect(finished.stderr).toMatch(/^diagnosis: unknown command 'diagnoze' \(commands: [^\n]+\)\n$/);
  });

  it.each(['diagnose', 'demo', 'trace', 'runs', 'cancel', 'eval', 'local', 'completion'])(
    'prints the help of %s with its usage, options and examples, exit 0',
    async (command) => {
      for (const args of [
        [command, '--help'],
        [command, '-h'],
        ['help', command],
      ]) {
        const finished = await diagnosis(args);
        expect(finished.code).toBe(0);
        expect(finished.stdout).toMatch(new RegExp(`^usage: diagnosis ${command}`));
        expect(finished.stdout).toContain('\noptions:\n');
        expect(finished.stdout).toContain('  -h, --help');
        expect(finished.stdout).toContain('\nexamples:\n');
        expect(finished.stderr).toBe('');
      }
    },
  );

  it.each([
    ['an unknown command', ['diagnoze'], 64, /^diagnosis: unknown command 'diagnoze' \(commands: /],
    ['no command', [], 64, /^usage: diagnosis <command>/],
    ['an unknown option', ['diagnose', 'q', '--model', 'x'], 64, /^diagnosis diagnose: unknown option --model /],
    ['an unknown option of trace', ['trace', '01ABC', '--html'], 64, /^diagnosis trace: unknown option --html /],
    [
      'a missing value',
      ['diagnose', 'q', '--enterprise'],
      64,
      /^diagnosis diagnose: option --enterprise needs a value/,
    ],
    ['a value for a flag', ['demo', '--json=yes'], 64, /^diagnosis demo: option --json takes no value/],
    [
      'a bad enterprise id',
      ['diagnose', 'q', '--enterprise', 'e1001'],
      64,
      /^diagnosis diagnose: bad enterprise id 'e1001'/,
    ],
    ['a bad enterprise id for runs', ['runs', '--enterprise', 'E1;DROP'], 64, /^diagnosis runs: bad enterprise id /],
    [
      'a bad timeout',
      ['diagnose', 'q', '--timeout', 'soon'],
      64,
      /^diagnosis diagnose: --timeout must be a whole number/,
    ],
    ['no query', ['diagnose'], 64, /^diagnosis diagnose: no query/],
    [
      'a run id of the wrong form',
      ['trace', '../../etc/passwd'],
      64,
      /^diagnosis trace: '\.\.\/\.\.\/etc\/passwd' is not a run id/,
    ],
    ['an unknown run id', ['trace', 'NO-SUCH-RUN'], 3, /^diagnosis trace: no run NO-SUCH-RUN in table cli-/],
    ['an unknown run to cancel', ['cancel', 'NO-SUCH-RUN'], 3, /^diagnosis cancel: no run NO-SUCH-RUN/],
    ['a bad limit', ['runs', '--limit', '1e3'], 64, /^diagnosis runs: --limit must be a whole number from 1 to 200/],
    ['an unknown option of eval', ['eval', '--bogus'], 64, /^diagnosis eval: unknown option --bogus/],
    [
      'a bad eval concurrency',
      ['eval', '--concurrency', '0'],
      64,
      /^diagnosis eval: --concurrency must be a whole number/,
    ],
    [
      'an eval corpus that is not there',
      ['eval', '--scenarios', '/no/such/dir'],
      64,
      /^diagnosis eval: .*not a directory/,
    ],
  ])('refuses %s with one line on stderr and exit %s, nothing on stdout', async (_label, args, code, message) => {
    const finished = await diagnosis(args, { DIAGNOSIS_MODEL_API_KEY: 'sk-test' });
    expect(finished.code).toBe(code);
    expect(finished.stderr).toMatch(message);
    if (args.length > 0) expect(finished.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(finished.stderr).not.toMatch(/\n {4}at |Error: .*\n.*at /);
    expect(finished.stdout).toBe('');
  });

  it.each([
    ['runs', ['runs']],
    ['trace', ['trace', '01ABC']],
  ])('says on one line that no DynamoDB answered (%s), exit 69, naming only the host', async (_label, args) => {
    const finished = await diagnosis(args, { DYNAMODB_ENDPOINT: 'http://user:SECRET-PW@127.0.0.1:1' });
    expect(finished.code).toBe(69);
    expect(finished.stderr).toMatch(/^diagnosis \w+: no DynamoDB answered at 127\.0\.0\.1:1 \(\w+\): is it running\?/);
    expect(finished.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(finished.stderr).not.toContain('SECRET-PW');
  });

  it('says on one line that the table is missing at a DynamoDB not of this machine, exit 69, naming the setting', async () => {
    // 127.0.0.2 is this machine too, but not an address the bin takes for its own: the table is not created there.
    // NOTE: a child process: such an endpoint gets the AWS SDK's credential chain, which reads the process environment.
    const elsewhere = endpoint.replace('127.0.0.1', '127.0.0.2');
    const finished = await diagnosisProcess(['runs'], {
      DYNAMODB_ENDPOINT: elsewhere,
      DIAGNOSIS_TABLE_NAME: 'no-such-table',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_REGION: 'local',
    });
    expect(finished).toMatchObject({
      code: 69,
      stdout: '',
      stderr: `diagnosis runs: table no-such-table does not exist at ${new URL(elsewhere).host}: check DIAGNOSIS_TABLE_NAME\n`,
    });
  });

  it('names the bad setting, never its value, exit 78', async () => {
    const finished = await diagnosis(['demo'], { MYSQL_URL: 'http://not-mysql/SECRET-PW' });
    expect(finished.code).toBe(78);
    expect(finished.stderr).toBe(
      'diagnosis demo: invalid settings: MYSQL_URL (a mysql:// URL) (every setting and its form: docs/settings.md)\n',
    );
  });

  describe('after two demo runs', () => {
    const runIds: string[] = [];
    let json: Record<string, unknown> = {};

    beforeAll(async () => {
      const first = await diagnosis(['demo', '--json']);
      const second = await diagnosis(['demo']);
      expect([first.code, second.code]).toEqual([0, 0]);
      json = JSON.parse(first.stdout);
      // The demo's --json holds to the committed schema (docs/schemas/diagnosis-result.schema.json).
      expect(schemaErrors('diagnosis-result', json)).toEqual([]);
      runIds.push(String(json.runId), /^run (\w{26}) {2}enterprise/m.exec(second.stderr)?.[1] ?? '');
    }, 120_000);

    it('runs lists both, newest first, with status, tokens and age', async () => {
      const finished = await diagnosis(['runs']);
      expect(finished.code).toBe(0);
      const lines = finished.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^RUN +STATUS +STOP \/ CODE +TOKENS +CALLS +AGE +ENTERPRISE +SESSION +QUERY$/);
      expect(lines.slice(1).map((line) => line.split(/\s+/)[0])).toEqual([runIds[1], runIds[0]]);
      for (const line of lines.slice(1))
        expect(line).toMatch(/^\w{26} {2}PUBLISHED +— +38,230 +4x 0ref 0dup +\d+ s +E1001 +demo +E1001 /);
    });

    it('runs filters by enterprise and session (the session index) and says when nothing matches', async () => {
      const bySession = JSON.parse(
        (await diagnosis(['runs', '--enterprise', 'E1001', '--session', 'demo', '--json'])).stdout,
      );
      expect(bySession.map((run: { runId: string }) => run.runId)).toEqual([runIds[1], runIds[0]]);
      expect(bySession[0]).toMatchObject({
        status: 'PUBLISHED',
        stopReason: null,
        totalTokens: 38_230,
        enterpriseId: 'E1001',
      });
      expect(schemaErrors('run-summaries', bySession)).toEqual([]);
      const limited = JSON.parse((await diagnosis(['runs', '--limit', '1', '--json'])).stdout);
      expect(limited.map((run: { runId: string }) => run.runId)).toEqual([runIds[1]]);
      expect((await diagnosis(['runs', '--enterprise', 'E2002'])).stdout).toBe(
        'no run matches --enterprise E2002: diagnosis runs without it lists every run\n',
      );
      expect(JSON.parse((await diagnosis(['runs', '--session', 'other', '--json'])).stdout)).toEqual([]);
    });

    it('writes the function’s JSON log lines and EMF metrics to the log file, never to stdout or the view', () => {
      const directory = join(dataDir, 'logs');
      const lines = readdirSync(directory)
        .flatMap((file) => readFileSync(join(directory, file), 'utf8').trimEnd().split('\n'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const runId of runIds) {
        expect(lines).toContainEqual(
          expect.objectContaining({ message: 'diagnosis finished', runId, status: 'PUBLISHED' }),
        );
      }
      expect(lines.filter((line) => '_aws' in line && line.outcome === 'PUBLISHED').length).toBeGreaterThanOrEqual(2);
    });

    it('--json carries, for each citation, the tool, the input the model sent and the observation it saw', async () => {
      const report = json.report as { citations: { tool_call_id: string; tool_name: string }[] };
      // The evidence view of the run's audit (core's buildRunEvidence): input and observation as the stored JSON text.
      const evidence = (
        json.evidence as {
          citations: { tool_call_id: string; tool_name: string; input: string; observation: string; found: boolean }[];
        }
      ).citations;
      expect(report.citations.length).toBeGreaterThan(0);
      expect(evidence.map((item) => item.tool_call_id)).toEqual(
        report.citations.map((citation) => citation.tool_call_id),
      );
      const store = createDynamoRunStore({ client: dynamo(), tableName });
      const stored = new Map(
        (await store.listRunRecords(runIds[0] ?? '', { limit: 100 })).records
          .filter((record): record is StoredToolInvocation => record.entity === 'tool_invocation')
          .map((record) => [record.toolCallId, record]),
      );
      for (const item of evidence) {
        const audited = stored.get(item.tool_call_id);
        if (audited === undefined) throw new Error(`no audited invocation ${item.tool_call_id}`);
        expect(item).toMatchObject({ tool_name: audited.toolName, found: true });
        expect(JSON.parse(item.input)).toEqual((audited.input as { input: unknown }).input);
        expect(JSON.parse(item.observation)).toEqual(audited.observation);
        expect(JSON.parse(item.observation)).toMatchObject({ tool_call_id: item.tool_call_id, evidence_status: 'OK' });
      }
      expect(JSON.parse(evidence.find((item) => item.tool_name === 'query_logs')?.input ?? 'null')).toMatchObject({
        service: expect.any(String),
        start_time: expect.any(String),
      });
    });
  });
});

describe('diagnosis cancel (in process)', () => {
  it('exits as its help says: 2 for a run that had already ended PUBLISHED, nothing written', async () => {
    let stdout = '';
    const io: CliIo = {
      stdout: (text) => {
        stdout += text;
      },
      stderr: () => undefined,
      env: { DYNAMODB_ENDPOINT: endpoint, DIAGNOSIS_TABLE_NAME: tableName, DIAGNOSIS_LOCAL_DATA: dataDir },
      stderrIsTTY: false,
      onInterrupt: () => () => undefined,
    };
    let stderr = '';
    const captureStderr = (text: string) => {
      stderr += text;
    };
    expect(await runCli(['demo'], { ...io, stderr: captureStderr }, COMMANDS)).toBe(0);
    const runId = /^run (\w{26}) {2}/m.exec(stderr)?.[1] ?? '';
    stdout = '';
    expect(await runCli(['cancel', '--help'], io, COMMANDS)).toBe(0);
    const documented = /^ {2}2 {3}(.+)$/m.exec(stdout)?.[1];
    expect(documented).toBe('nothing to cancel: the run had already ended PUBLISHED, FALLBACK or FAILED (printed)');
    stdout = '';
    expect(await runCli(['cancel', runId], io, COMMANDS)).toBe(2);
    expect(stdout).toBe(`run ${runId}: nothing to cancel, the run had already ended PUBLISHED\n`);
  }, 60_000);
});

describe('the live view of the demo (in process, 20 runs)', () => {
  it('prints every round before its tool calls and those before the next round, in the audit’s own order', async () => {
    const store = createDynamoRunStore({ client: dynamo(), tableName });
    for (let attempt = 0; attempt < 20; attempt += 1) {
      let stderr = '';
      const io: CliIo = {
        stdout: () => undefined,
        stderr: (text) => {
          stderr += text;
        },
        env: { DYNAMODB_ENDPOINT: endpoint, DIAGNOSIS_TABLE_NAME: tableName, DIAGNOSIS_LOCAL_DATA: dataDir },
        stderrIsTTY: false,
        onInterrupt: () => () => undefined,
      };
      expect(await runCli(['demo'], io, COMMANDS)).toBe(0);
      const runId = /^run (\w{26}) {2}/m.exec(stderr)?.[1] ?? '';
      // The view: round lines and tool lines, as printed.
      const view = stderr.split('\n').flatMap((line) => {
        const round = /^ {2}▸ (?:round|judge \(SemanticGuard\)) (\d+) /.exec(line);
        if (round) return [`S${round[1]}`];
        const tool = /^ {4}⚙ .* (call_\w+)$/.exec(line);
        return tool ? [`T${tool[1]}`] : [];
      });
      // The audit's sequence: each step, then the tool calls it asked for, in the order they ran.
      const records: RunRecord[] = (await store.listRunRecords(runId, { limit: 100 })).records;
      const steps = records.flatMap((record) => (record.entity === 'agent_step' ? [record] : []));
      const tools = records.flatMap((record) => (record.entity === 'tool_invocation' ? [record] : []));
      const audit = steps
        .sort((a, b) => a.stepNumber - b.stepNumber)
        .flatMap((step) => [
          `S${step.stepNumber}`,
          ...tools
            .filter((tool) => tool.stepNumber === step.stepNumber)
            .sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt))
            .map((tool) => `T${tool.toolCallId}`),
        ]);
      expect(view, `run ${attempt + 1} (${runId})`).toEqual(audit);
      expect(view.filter((entry) => entry.startsWith('S'))).toEqual(['S1', 'S2', 'S3', 'S4', 'S5', 'S6']);
      expect(stderr).not.toMatch(/ 0\.0 s /);
    }
  }, 240_000);
});

describe('the second hour', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'diagnosis-dotenv-'));
  });
  afterAll(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  it('prints its version, the package’s, exit 0 (a child process)', async () => {
    const version = JSON.parse(readFileSync(join(ROOT, 'packages/cli/package.json'), 'utf8')).version;
    for (const flag of ['--version', '-V']) {
      const finished = await diagnosisProcess([flag], { DIAGNOSIS_TABLE_NAME: tableName });
      expect(finished).toMatchObject({ code: 0, stderr: '' });
      expect(finished.stdout).toBe(`diagnosis ${version} (node ${process.version})\n`);
    }
  });

  it('reads a .env in the working directory, below the environment, and never prints its values', async () => {
    writeFileSync(join(folder, '.env'), `# settings of this folder\nDIAGNOSIS_TABLE_NAME="SECRET table!"\n`);
    // The first in a child process started in the folder: the process's own working directory is where it reads.
    const fromFile = await diagnosisProcess(['runs'], {}, folder);
    expect(fromFile.code).toBe(78);
    expect(fromFile.stderr).toBe(
      'diagnosis runs: invalid settings: DIAGNOSIS_TABLE_NAME (3 to 255 letters, digits and _ . -) (every setting and its form: docs/settings.md)\n',
    );
    const overridden = await diagnosisIn(folder, ['runs', '--limit', '1'], { DIAGNOSIS_TABLE_NAME: tableName });
    expect(overridden.code).toBe(0);

    writeFileSync(join(folder, '.env'), `DIAGNOSIS_TABLE_NAME=${tableName}\nMYSQL_URL=http://user:SECRET-PW@db\n`);
    const demo = await diagnosisIn(folder, ['demo']);
    expect(demo.code).toBe(78);
    expect(demo.stderr).toBe(
      'diagnosis demo: invalid settings: MYSQL_URL (a mysql:// URL) (every setting and its form: docs/settings.md)\n',
    );
    expect(`${fromFile.stderr}${demo.stdout}${demo.stderr}`).not.toContain('SECRET');
  });

  it('refuses a misspelled setting of its own namespaces, in the environment or .env, with the setting meant, exit 78', async () => {
    const fromEnvironment = await diagnosis(['runs'], {
      DIAGNOSIS_MODEL_PROFIL: 'openai',
      MYSQL_PWD: 'SECRET-PW',
      MYSQL_HOST: 'db',
    });
    expect(fromEnvironment).toMatchObject({
      code: 78,
      stdout: '',
      stderr:
        'diagnosis runs: unknown setting: DIAGNOSIS_MODEL_PROFIL in the environment (did you mean DIAGNOSIS_MODEL_PROFILE?); every setting is in docs/settings.md\n',
    });
    writeFileSync(join(folder, '.env'), 'DIAGNOSIS_MODEL_BASEURL=http://127.0.0.1:1/v1\n');
    const fromFile = await diagnosisIn(folder, ['runs', '--limit', '1'], { DIAGNOSIS_TABLE_NAME: tableName });
    expect(fromFile.code).toBe(78);
    expect(fromFile.stderr).toBe(
      'diagnosis runs: unknown setting: DIAGNOSIS_MODEL_BASEURL in .env (did you mean DIAGNOSIS_MODEL_BASE_URL?); every setting is in docs/settings.md\n',
    );
  });

  it('warns of a near miss of another setting and goes on, and never names MySQL’s own variables', async () => {
    const finished = await diagnosis(['runs', '--limit', '1'], {
      LOG_BACKEND: 'cloudwatch',
      MYSQL_URI: 'x',
      MYSQL_PWD: 'pw',
      MYSQL_HOST: 'db',
    });
    expect(finished.code).toBe(0);
    expect(finished.stderr).toBe(
      [
        'diagnosis runs: warning: LOG_BACKEND in the environment is not a setting (did you mean LOGS_BACKEND?); it is ignored',
        'diagnosis runs: warning: MYSQL_URI in the environment is not a setting (did you mean MYSQL_URL?); it is ignored',
        '',
      ].join('\n'),
    );
  });

  it('refuses an empty value in .env instead of using the default, exit 78', async () => {
    writeFileSync(join(folder, '.env'), 'DIAGNOSIS_MODEL_BASE_URL=\n');
    const finished = await diagnosisIn(folder, ['runs', '--limit', '1'], { DIAGNOSIS_TABLE_NAME: tableName });
    expect(finished).toMatchObject({
      code: 78,
      stderr:
        'diagnosis: .env gives DIAGNOSIS_MODEL_BASE_URL an empty value: give it a value, or delete the line to use the default\n',
    });
  });

  it('refuses a .env over 64 KiB without reading it', async () => {
    writeFileSync(join(folder, '.env'), `A=${'x'.repeat(70 * 1024)}\n`);
    const finished = await diagnosisIn(folder, ['runs']);
    expect(finished).toMatchObject({
      code: 78,
      stdout: '',
      stderr: 'diagnosis: .env is larger than 64 KiB: not read\n',
    });
    rmSync(join(folder, '.env'));
  });

  it('shows in each command’s help the settings it reads, with their forms and the precedence', async () => {
    const diagnose = await diagnosis(['diagnose', '--help']);
    expect(diagnose.stdout).toContain(
      '\nsettings (a flag, then the environment, then .env in this folder, then the default):\n',
    );
    // An entry longer than the help's width goes on under its text: read each entry as one line.
    const entries = diagnose.stdout.replace(/\n {6,}/g, ' ');
    expect(entries).toMatch(
      /^ {2}DIAGNOSIS_MODEL_PROFILE +the provider profile.*; one of deepseek, openai, qwen, openai-compatible$/m,
    );
    expect(entries).toMatch(/^ {2}DIAGNOSIS_MAX_QUERY_BYTES +.*; a whole number from 1 to 32768$/m);
    const runs = await diagnosis(['runs', '--help']);
    expect(runs.stdout).toMatch(/^ {2}DIAGNOSIS_TABLE_NAME +the table/m);
    expect(runs.stdout).not.toContain('DIAGNOSIS_MODEL_API_KEY');
  });

  it('completes commands, options and fixed arguments in bash (the script sourced in a child bash)', async () => {
    const script = await diagnosis(['completion', 'bash']);
    expect(script.code).toBe(0);
    writeFileSync(join(folder, 'completion.bash'), script.stdout);
    const complete = (words: string[]) =>
      execFileSync(
        'bash',
        [
          '-c',
          `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _diagnosis; printf '%s\\n' "\${COMPREPLY[@]}"`,
          'complete',
          join(folder, 'completion.bash'),
          ...words,
        ],
        { encoding: 'utf8' },
      )
        .trim()
        .split('\n');
    expect(complete(['diagnosis', 'tra'])).toEqual(['trace']);
    expect(complete(['diagnosis', 'tr'])).toEqual(['trigger', 'trace']);
    expect(complete(['diagnosis', ''])).toEqual(
      expect.arrayContaining([
        'diagnose',
        'demo',
        'trace',
        'runs',
        'cancel',
        'eval',
        'local',
        'completion',
        '--version',
      ]),
    );
    expect(complete(['diagnosis', 'trace', '--i'])).toEqual(['--include-reasoning']);
    expect(complete(['diagnosis', 'runs', '--'])).toEqual(['--enterprise', '--session', '--limit', '--json', '--help']);
    expect(complete(['diagnosis', 'local', 's'])).toEqual(['status', 'stop']);
    expect(complete(['diagnosis', 'completion', 'z'])).toEqual(['zsh']);
    const registered = execFileSync(
      'bash',
      ['-c', 'source "$1"; complete -p diagnosis', 'x', join(folder, 'completion.bash')],
      {
        encoding: 'utf8',
      },
    );
    expect(registered.trim()).toBe('complete -F _diagnosis diagnosis');
    // `npx diagnosis <TAB>`: how the bin is run in this project (it is not on PATH).
    const npx = execFileSync('bash', ['-c', 'source "$1"; complete -p npx', 'x', join(folder, 'completion.bash')], {
      encoding: 'utf8',
    });
    expect(npx.trim()).toBe('complete -F _diagnosis npx');
    expect(complete(['npx', 'diagnosis', 'tra'])).toEqual(['trace']);
    expect(complete(['npx', 'diagnosis', 'runs', '--l'])).toEqual(['--limit']);
    expect(complete(['npx', 'diag'])).toEqual(['diagnosis']);
    // Another package run with npx is left to file names.
    expect(complete(['npx', 'vitest', 'zzz-no-such-file'])).toEqual(['']);
  });

  it('prints a zsh completion script naming every command (zsh itself is not installed here)', async () => {
    const script = await diagnosis(['completion', 'zsh']);
    expect(script.code).toBe(0);
    expect(script.stdout).toMatch(/^#compdef diagnosis npx\n/);
    expect(script.stdout).toContain('compdef _diagnosis diagnosis npx');
    for (const command of COMMANDS) expect(script.stdout).toContain(`    ${command.name}) compadd -- `);
    expect(await diagnosis(['completion', 'fish'])).toMatchObject({ code: 64 });
  });
});

function dynamo(): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
}
