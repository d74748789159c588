import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = resolve(ROOT, 'packages/cli/src/main.ts');

export interface Finished {
  code: number | null;
  /** The signal that ended the process, or null when it exited by itself. */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface BinOptions {
  /** Where the process starts (the bin reads a `.env` there); the repository's root unless given. */
  cwd?: string;
  /** Node's own arguments, before the bin's script (`--import <hook>`). */
  nodeArguments?: string[];
  /**
   * How a user starts it, instead of `node main.ts`: `['npx', 'diagnosis']`, `['npm', 'run', 'serve', '--']`,
   * `['node_modules/.bin/diagnosis']` (the arguments follow).
   */
  launcher?: readonly string[];
  /**
   * Started as a terminal starts a job: in a process group of its own, which `interrupt()` signals whole, as Ctrl-C
   * does (npm, its shell and the bin all receive it).
   */
  processGroup?: boolean;
}

/** A `diagnosis` bin started in a child process. */
export interface RunningBin {
  child: ChildProcessWithoutNullStreams;
  /** Resolves when the process has exited, with everything it wrote. */
  done: Promise<Finished>;
  /** Everything the process wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves once the stream, from offset `from`, matches (no fixed wait, no polling); rejects if the process ends first. */
  matches(stream: 'stdout' | 'stderr', pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  /** Resolves with `event` (a request the bin makes, say); rejects if the process ends first. */
  until<T>(event: Promise<T>): Promise<T>;
  /** Ctrl-C: SIGINT to the process group (`processGroup`), else to the process. */
  interrupt(): void;
}

/**
 * The `diagnosis` bin in a child process, with only PATH and HOME of this process's environment and `environment`
 * (a test's DynamoDB Local, table and data folder). The one way the tests start the bin: a test of what only a
 * process shows (exit codes, signals, stdout and stderr, what a fresh process loads) starts it here.
 */
export function startBin(args: string[], environment: Record<string, string>, options: BinOptions = {}): RunningBin {
  const [command, ...launch] = options.launcher ?? [process.execPath, ...(options.nodeArguments ?? []), CLI];
  const child = spawn(command as string, [...launch, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    detached: options.processGroup === true,
  });
  const written = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    written.stdout += chunk.toString();
    wake();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    written.stderr += chunk.toString();
    wake();
  });
  let exited = false;
  const done = new Promise<Finished>((resolveDone) =>
    child.once('close', (code, signal) => {
      exited = true;
      wake();
      resolveDone({ code, signal, stdout: written.stdout, stderr: written.stderr });
    }),
  );
  const matches = (stream: 'stdout' | 'stderr', pattern: RegExp, from = 0) =>
    new Promise<RegExpExecArray>((resolveMatch, reject) => {
      const check = () => {
        const match = pattern.exec(written[stream].slice(from));
        if (match === null && !exited) return;
        waiters.delete(check);
        if (match !== null) resolveMatch(match);
        else reject(new Error(`the bin ended before its ${stream} matched ${pattern}: ${written.stderr}`));
      };
      waiters.add(check);
      check();
    });
  const until = <T>(event: Promise<T>) =>
    Promise.race([
      event,
      done.then((finished): never => {
        throw new Error(`the bin ended (exit ${finished.code}) before the awaited event: ${finished.stderr}`);
      }),
    ]);
  const interrupt = () => {
    if (exited || child.pid === undefined) return;
    if (options.processGroup === true) process.kill(-child.pid, 'SIGINT');
    else child.kill('SIGINT');
  };
  return { child, done, output: () => ({ ...written }), matches, until, interrupt };
}

/** `startBin`, resolved when the process has exited. */
export function runBin(args: string[], environment: Record<string, string>, options?: BinOptions): Promise<Finished> {
  return startBin(args, environment, options).done;
}

export interface ServingBin {
  /** The URL the server says it serves at. */
  url: string;
  /** Everything the server wrote on stderr so far (its banner, access log and notices). */
  stderr(): string;
  /** Resolves once stderr, from offset `from`, matches (no fixed wait). */
  stderrMatches(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  /** Ctrl-C; resolves with the exit code (a clean stop is 0). */
  stop(): Promise<number | null>;
}

/** `diagnosis serve …` in a child process (environment as `runBin`'s), once it says where it serves. */
export async function startServeBin(
  args: string[],
  environment: Record<string, string>,
  options: BinOptions = {},
): Promise<ServingBin> {
  const bin = startBin(['serve', ...args], environment, options);
  const listening = await bin
    .matches('stderr', /serving the deployed API at (http:\/\/127\.0\.0\.1:\d+)/)
    .catch(async () => {
      const finished = await bin.done;
      throw new Error(`serve exited ${finished.code}: ${finished.stderr}`);
    });
  return {
    url: listening[1] ?? '',
    stderr: () => bin.output().stderr,
    stderrMatches: (pattern, from) => bin.matches('stderr', pattern, from),
    async stop() {
      if (bin.child.exitCode === null) bin.child.kill('SIGINT');
      return (await bin.done).code;
    },
  };
}
