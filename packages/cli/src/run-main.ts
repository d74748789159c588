/**
 * The `diagnosis` bin's body (main.ts imports it once the compile cache is on). Only this file touches the process:
 * its arguments, environment (read only), streams, signals and exit code.
 */
import { runCli } from './cli.ts';
import { CliError, EXIT } from './command-line.ts';
import { COMMANDS } from './commands/index.ts';
import { withDotEnv } from './environment.ts';
import { createInterrupts } from './interrupts.ts';

// NOTE: a reader that stops early (`diagnosis runs | head -1`) closes the pipe: that ends the command quietly,
// never with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? EXIT.OK : EXIT.IO);
  });
}

let environment: ReturnType<typeof withDotEnv>;
try {
  // NOTE: the environment over a .env file of the working directory; the process environment itself is never written.
  environment = withDotEnv(process.env, process.cwd());
} catch (error) {
  if (!(error instanceof CliError)) throw error;
  process.stderr.write(`diagnosis: ${error.message}\n`);
  process.exit(error.exitCode);
}

// NOTE: one listener per signal for the process's whole life (interrupts.ts): the repeats of one Ctrl-C that npm
// forwards are one interrupt, and no signal finds the process without a listener between two commands' handlers.
const interrupts = createInterrupts({ now: () => performance.now(), exit: (code) => process.exit(code) });
process.on('SIGINT', interrupts.receive);
process.on('SIGTERM', interrupts.receive);

process.exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: environment.env,
    dotEnvKeys: environment.fileKeys,
    stderrIsTTY: process.stderr.isTTY === true,
    onInterrupt: interrupts.onInterrupt,
  },
  COMMANDS,
);
