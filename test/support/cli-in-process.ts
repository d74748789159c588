import { resolve } from 'node:path';
import { runCommandLine } from '../../packages/cli/src/index.ts';
import type { Finished } from './cli-process.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export interface InProcessOptions {
  /** Where the command reads a `.env`; the repository's root unless given (a file argument is still resolved
   * against this process's working directory, the repository's root, as the child process's default). */
  cwd?: string;
}

/** A `diagnosis` command running in this process. */
export interface RunningCommand {
  /** Resolves when the command has returned, with everything it wrote (`signal` is always null). */
  done: Promise<Finished>;
  /** Everything the command wrote so far. */
  output(): { stdout: string; stderr: string };
  /** Resolves once the stream, from offset `from`, matches (no fixed wait, no polling); rejects if the command ends first. */
  matches(stream: 'stdout' | 'stderr', pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  /** Resolves with `event` (a request the command makes, say); rejects if the command ends first. */
  until<T>(event: Promise<T>): Promise<T>;
}

/**
 * The `diagnosis` bin's commands in this process (runCommandLine: the bin without its process), with the
 * environment a child of `startBin` gets: only PATH and HOME of this process's and `environment`. What the command
 * writes is captured, its exit code returned; no signal reaches it (a Ctrl-C is a child process's test:
 * cli-process.ts). The suite's way to test a command's logic: it skips Node's start, the TypeScript strip and the
 * imports a child process pays on every command.
 */
export function startInProcess(
  args: string[],
  environment: Record<string, string>,
  options: InProcessOptions = {},
): RunningCommand {
  const written = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  let ended = false;
  const done = runCommandLine({
    argv: args,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
    cwd: options.cwd ?? ROOT,
    stdout: (text) => {
      written.stdout += text;
      wake();
    },
    stderr: (text) => {
      written.stderr += text;
      wake();
    },
    stderrIsTTY: false,
    onInterrupt: () => () => undefined,
  }).then(
    (code): Finished => {
      ended = true;
      wake();
      return { code, signal: null, stdout: written.stdout, stderr: written.stderr };
    },
    (error: unknown) => {
      ended = true;
      wake();
      throw error;
    },
  );
  const matches = (stream: 'stdout' | 'stderr', pattern: RegExp, from = 0) =>
    new Promise<RegExpExecArray>((resolveMatch, reject) => {
      const check = () => {
        const match = pattern.exec(written[stream].slice(from));
        if (match === null && !ended) return;
        waiters.delete(check);
        if (match !== null) resolveMatch(match);
        else reject(new Error(`the command ended before its ${stream} matched ${pattern}: ${written.stderr}`));
      };
      waiters.add(check);
      check();
    });
  const until = <T>(event: Promise<T>) =>
    Promise.race([
      event,
      done.then((finished): never => {
        throw new Error(`the command ended (exit ${finished.code}) before the awaited event: ${finished.stderr}`);
      }),
    ]);
  return { done, output: () => ({ ...written }), matches, until };
}

/** `startInProcess`, resolved when the command has returned. */
export function runInProcess(
  args: string[],
  environment: Record<string, string>,
  options?: InProcessOptions,
): Promise<Finished> {
  return startInProcess(args, environment, options).done;
}
