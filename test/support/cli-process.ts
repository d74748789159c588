import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = 'packages/cli/src/main.ts';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The `diagnosis` bin in a child process from the repository's root, with only PATH and HOME of this process's
 * environment and `environment` (a test's DynamoDB Local, table and data folder).
 */
export function runBin(args: string[], environment: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done) => child.on('exit', (code) => done({ code, stdout, stderr })));
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
export async function startServeBin(args: string[], environment: Record<string, string>): Promise<ServingBin> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
  });
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const waiter of [...waiters]) waiter();
  });
  child.stdout.resume();
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stderrMatches = (pattern: RegExp, from = 0) =>
    new Promise<RegExpExecArray>((resolveMatch) => {
      const check = () => {
        const match = pattern.exec(stderr.slice(from));
        if (match === null) return;
        waiters.delete(check);
        resolveMatch(match);
      };
      waiters.add(check);
      check();
    });
  const listening = await Promise.race([
    stderrMatches(/serving the deployed API at (http:\/\/127\.0\.0\.1:\d+)/),
    exited.then((code) => {
      throw new Error(`serve exited ${code}: ${stderr}`);
    }),
  ]);
  return {
    url: listening[1] ?? '',
    stderr: () => stderr,
    stderrMatches,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
