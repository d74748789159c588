/**
 * The DynamoDB Local a data folder shares (packages/cli/src/local/local-engine.ts), through the `diagnosis` bin with no
 * DYNAMODB_ENDPOINT: the only CLI tests that start Java on purpose. A command that may start the engine runs in a child
 * process (the engine outlives the process that started it; a runner is killed outright); one that finds, reuses,
 * stops or refuses it runs in process (runCommandLine), reading the same note from disk. Timing-free: they count the
 * JVMs that persist into this test's data folder and read its engine note, never the clock.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import { startBin } from '../../support/cli-process.ts';
import { startDeepSeekServer } from '../../support/deepseek-server.ts';

let dataDir: string;
let server: Awaited<ReturnType<typeof startDeepSeekServer>>;

/** The bin in a child process started in this test's folder, its data folder inside it, with no DynamoDB endpoint. */
const start = (args: string[], environment: Record<string, string> = {}) =>
  startBin(args, { DIAGNOSIS_LOCAL_DATA: join(dataDir, 'data'), ...environment }, { cwd: dataDir });

const diagnosis = (args: string[], environment?: Record<string, string>) => start(args, environment).done;
/** The bin's command in process, its working directory and data folder this test's, with no DynamoDB endpoint. */
const diagnosisInProcess = (args: string[], environment: Record<string, string> = {}) =>
  runInProcess(args, { DIAGNOSIS_LOCAL_DATA: join(dataDir, 'data'), ...environment }, { cwd: dataDir });
const notePath = () => join(dataDir, 'data', 'dynamodb', 'engine.json');
const note = (): { pid: number; endpoint: string } | undefined =>
  existsSync(notePath()) ? JSON.parse(readFileSync(notePath(), 'utf8')) : undefined;

/** The DynamoDB Local JVMs persisting into this test's data folder. */
function jvms(): string[] {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal.jar -dbPath ${join(dataDir, 'data', 'dynamodb')}`], {
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .filter(Boolean);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-engine-'));
  server = await startDeepSeekServer();
});

afterAll(async () => {
  await diagnosisInProcess(['local', 'stop']);
  // NOTE: whatever a failed test left: no JVM of this folder outlives the file.
  for (const pid of jvms()) process.kill(Number(pid), 'SIGKILL');
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

// NOTE: each test runs several child processes (and some start Java); a loaded machine needs more than the default.
describe('the data folder’s shared DynamoDB Local', { timeout: 120_000 }, () => {
  it.each([
    ['a run id of the wrong form', ['trace', '../etc'], {}, 64],
    ['an option out of range', ['runs', '--limit', '0'], {}, 64],
    ['a bad table name', ['runs'], { DIAGNOSIS_TABLE_NAME: 'x' }, 78],
    ['a bad endpoint', ['cancel', '01ABC'], { DYNAMODB_ENDPOINT: 'not a url' }, 78],
    ['a bad profile', ['diagnose', 'q'], { DIAGNOSIS_MODEL_API_KEY: 'sk-t', DIAGNOSIS_MODEL_PROFILE: 'gpt' }, 78],
    ['an oversized query', ['diagnose', '订'.repeat(1_400)], { DIAGNOSIS_MODEL_API_KEY: 'sk-t' }, 64],
    [
      'a query over a lowered limit',
      ['diagnose', 'x'.repeat(600)],
      { DIAGNOSIS_MODEL_API_KEY: 'sk-t', DIAGNOSIS_MAX_QUERY_BYTES: '512' },
      64,
    ],
  ])('refuses %s before anything starts: no engine, no note', async (_label, args, environment, code) => {
    const finished = await diagnosisInProcess(args as string[], environment as Record<string, string>);
    expect(finished.code).toBe(code);
    expect(finished.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(jvms()).toEqual([]);
    expect(note()).toBeUndefined();
  });

  it('names the refused setting and its form on one line, never its value', async () => {
    const finished = await diagnosisInProcess(['diagnose', 'q'], {
      DIAGNOSIS_MODEL_API_KEY: 'sk-t',
      DIAGNOSIS_MODEL_PROFILE: 'SECRET-PROFILE',
      RETENTION_DAYS: 'SECRET-DAYS',
    });
    expect(finished.stderr).toBe(
      'diagnosis diagnose: invalid settings: DIAGNOSIS_MODEL_PROFILE (one of deepseek, openai, qwen, openai-compatible); RETENTION_DAYS (a whole number of at least 1) (every setting and its form: docs/settings.md)\n',
    );
  });

  it('starts one engine on the first read command, says so, and every later command reuses it', async () => {
    const first = await diagnosis(['runs']);
    expect(first.code).toBe(0);
    expect(first.stderr).toMatch(/^started DynamoDB Local for .+ \(pid \d+\); it keeps running for the next commands/);
    const started = note();
    expect(started?.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(jvms()).toEqual([String(started?.pid)]);

    for (const args of [['runs'], ['trace', 'no-such-run'], ['cancel', 'no-such-run']]) {
      const again = await diagnosisInProcess(args);
      expect(again.stderr).not.toContain('started DynamoDB Local');
      expect(again.code).toBe(args[0] === 'runs' ? 0 : 3);
    }
    expect(note()?.pid).toBe(started?.pid);
    expect(jvms()).toEqual([String(started?.pid)]);
    const status = await diagnosisInProcess(['local', 'status']);
    expect(status).toMatchObject({ code: 0 });
    expect(status.stdout).toContain(`(pid ${started?.pid}, since `);
  });

  it('keeps the engine when a runner using it is killed outright, and the next command reuses it', async () => {
    const pid = note()?.pid;
    const { promise: reached, resolve: arrived } = Promise.withResolvers<void>();
    server.script.push(() => {
      arrived();
      return new Promise(() => undefined);
    });
    const runner = start(['diagnose', 'E1001 的订单为什么失败？'], {
      DIAGNOSIS_MODEL_API_KEY: 'sk-engine-test',
      DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
    });
    await runner.until(reached);
    runner.child.kill('SIGKILL');
    await runner.done;
    const after = await diagnosisInProcess(['runs', '--limit', '1']);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/RUNNING/);
    expect(note()?.pid).toBe(pid);
    expect(jvms()).toEqual([String(pid)]);
  });

  it('stops the engine with local stop, then says nothing runs', async () => {
    const pid = note()?.pid ?? 0;
    const stopped = await diagnosisInProcess(['local', 'stop']);
    expect(stopped.code).toBe(0);
    expect(stopped.stdout).toContain(`stopped DynamoDB Local for ${join(dataDir, 'data')} (pid ${pid})`);
    expect(alive(pid)).toBe(false);
    expect(jvms()).toEqual([]);
    expect(note()).toBeUndefined();
    expect(await diagnosisInProcess(['local', 'status'])).toMatchObject({ code: 3 });
    expect((await diagnosisInProcess(['local', 'stop'])).stdout).toContain('nothing to stop');
  });

  it('starts one engine when two commands need it at once (the start lock)', async () => {
    const [one, two] = await Promise.all([diagnosis(['runs']), diagnosis(['runs'])]);
    expect([one?.code, two?.code]).toEqual([0, 0]);
    expect(`${one?.stderr}${two?.stderr}`.match(/started DynamoDB Local/g)).toHaveLength(1);
    expect(jvms()).toHaveLength(1);
    expect(jvms()).toEqual([String(note()?.pid)]);
  });

  it('neither reuses nor replaces an engine whose process runs but does not answer: it says so, exit 69', async () => {
    await diagnosisInProcess(['local', 'stop']);
    const dbPath = join(dataDir, 'data', 'dynamodb');
    // A process with the engine's command line that answers nothing (port 9 is closed).
    const silent = spawn('bash', ['-c', 'sleep 60; true', 'DynamoDBLocal.jar', '-dbPath', dbPath], { stdio: 'ignore' });
    try {
      const pid = silent.pid ?? 0;
      writeFileSync(notePath(), JSON.stringify({ endpoint: 'http://127.0.0.1:9', pid, dbPath, startedAt: 'x' }));
      const finished = await diagnosisInProcess(['runs']);
      expect(finished.code).toBe(69);
      expect(finished.stderr).toBe(
        `diagnosis runs: DynamoDB Local (pid ${pid}) runs for this data folder but does not answer: try again, or restart it with diagnosis local stop (the data stays)\n`,
      );
      expect(note()?.pid).toBe(pid);
      expect(jvms()).toEqual([String(pid)]);
      expect(alive(pid)).toBe(true);
    } finally {
      silent.kill('SIGKILL');
    }
  });

  it('ignores a note naming a process that is not this folder’s engine, never signals it, and starts its own', async () => {
    await diagnosisInProcess(['local', 'stop']);
    const bystander = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const pid = bystander.pid ?? 0;
      writeFileSync(
        notePath(),
        JSON.stringify({
          endpoint: 'http://127.0.0.1:9',
          pid,
          dbPath: join(dataDir, 'data', 'dynamodb'),
          startedAt: 'x',
        }),
      );
      expect((await diagnosisInProcess(['local', 'stop'])).stdout).toContain('nothing to stop');
      expect(alive(pid)).toBe(true);
      writeFileSync(
        notePath(),
        JSON.stringify({
          endpoint: 'http://127.0.0.1:9',
          pid,
          dbPath: join(dataDir, 'data', 'dynamodb'),
          startedAt: 'x',
        }),
      );
      const finished = await diagnosis(['runs']);
      expect(finished.code).toBe(0);
      expect(finished.stderr).toContain('started DynamoDB Local');
      expect(note()?.pid).not.toBe(pid);
      expect(alive(pid)).toBe(true);
      expect(jvms()).toEqual([String(note()?.pid)]);
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});
