#!/usr/bin/env node
/**
 * The `diagnosis` bin (also behind `npm run diagnose|demo|trace|runs|cancel`). Only this file touches the process:
 * its arguments, environment (read only), streams, signals and exit code.
 */
import { runCli } from './cli.ts';
import { EXIT } from './command-line.ts';
import { COMMANDS } from './commands/index.ts';

// NOTE: a reader that stops early (`diagnosis runs | head -1`) closes the pipe: that ends the command quietly,
// never with a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? EXIT.OK : EXIT.IO);
  });
}

process.exitCode = await runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stderrIsTTY: process.stderr.isTTY === true,
    onInterrupt(handler) {
      process.on('SIGINT', handler);
      process.on('SIGTERM', handler);
      return () => {
        process.off('SIGINT', handler);
        process.off('SIGTERM', handler);
      };
    },
  },
  COMMANDS,
);
