/**
 * The `diagnosis` bin's body (main.ts imports it once the compile cache is on). Only this file touches the process:
 * its arguments, environment (read only), working directory, streams, signals and exit code; the rest of the bin
 * (run-command-line.ts) takes them as values.
 */
import { EXIT } from './command-line.ts';
import { createInterrupts } from './interrupts.ts';
import { runCommandLine } from './run-command-line.ts';

// NOTE: a reader that stops early (`diagnosis runs | head -1`) closes the pipe: that ends the command quietly,
// never with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? EXIT.OK : EXIT.IO);
  });
}

// NOTE: one listener per signal for the process's whole life (interrupts.ts): the repeats of one Ctrl-C that npm
// forwards are one interrupt, and no signal finds the process without a listener between two commands' handlers.
const interrupts = createInterrupts({ now: () => performance.now(), exit: (code) => process.exit(code) });
process.on('SIGINT', interrupts.receive);
process.on('SIGTERM', interrupts.receive);

process.exitCode = await runCommandLine({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTTY: process.stderr.isTTY === true,
  onInterrupt: interrupts.onInterrupt,
});
