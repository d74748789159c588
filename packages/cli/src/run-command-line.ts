import { runCli } from './cli.ts';
import { CliError, type CliIo, type Command } from './command-line.ts';
import { COMMANDS } from './commands/index.ts';
import { withDotEnv } from './environment.ts';

/**
 * What the `diagnosis` bin takes from its process, as plain values: run-main.ts passes the process's own, a test its
 * captures. NOTE: a relative file argument (`trigger <event.json>`, `eval --scenarios <dir>`) is still resolved
 * against the process's working directory; `cwd` is where the `.env` is read.
 */
export interface CommandLine extends Omit<CliIo, 'env' | 'dotEnvKeys'> {
  /** The arguments after the bin's name. */
  argv: readonly string[];
  /** The environment as the process has it, before the `.env` of `cwd` is read under it. */
  env: Readonly<Record<string, string | undefined>>;
  /** The working directory: where the `.env` is read. */
  cwd: string;
}

/**
 * The `diagnosis` bin without its process: reads the `.env` of the working directory under the environment, runs the
 * command, and returns the exit code. A `.env` it refuses is one line on stderr (`diagnosis: <what>`) and exit 78.
 * What only a process has stays in run-main.ts: the signal listeners, a closed pipe, the exit itself.
 */
export async function runCommandLine(line: CommandLine, commands: readonly Command[] = COMMANDS): Promise<number> {
  const { argv, env, cwd, ...io } = line;
  let environment: ReturnType<typeof withDotEnv>;
  try {
    // NOTE: the environment over a .env file of the working directory; the environment given is never written.
    environment = withDotEnv(env, cwd);
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    io.stderr(`diagnosis: ${error.message}\n`);
    return error.exitCode;
  }
  return runCli([...argv], { ...io, env: environment.env, dotEnvKeys: environment.fileKeys }, commands);
}
