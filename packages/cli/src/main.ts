#!/usr/bin/env node
/**
 * The `diagnosis` bin (also behind `npm run diagnose|demo|trace|runs|cancel`). Only this file touches the process:
 * its arguments, environment (read only), streams, signals and exit code.
 */
import { runCli } from './cli.ts';
import { COMMANDS } from './commands/index.ts';

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
