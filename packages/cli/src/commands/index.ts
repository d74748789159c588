import type { Command } from '../command-line.ts';
import { cancelCommand } from './cancel.ts';
import { changeCommand } from './change.ts';
import { createCompletionCommand } from './completion.ts';
import { demoCommand } from './demo.ts';
import { diagnoseCommand } from './diagnose.ts';
import { evalCommand } from './eval.ts';
import { feedbackCommand } from './feedback.ts';
import { localCommand } from './local.ts';
import { memoryCommand } from './memory.ts';
import { revealCommand } from './reveal.ts';
import { runsCommand } from './runs.ts';
import { serveCommand } from './serve.ts';
import { traceCommand } from './trace.ts';
import { triggerCommand } from './trigger.ts';

/**
 * The commands of the `diagnosis` bin, in the order its help lists them. NOTE: a new command is one entry here (a
 * `Command`: its help and its `run`); parsing, `--help`, errors and exit codes are the bin's, not the command's.
 */
export const COMMANDS: readonly Command[] = [
  diagnoseCommand,
  demoCommand,
  triggerCommand,
  changeCommand,
  serveCommand,
  traceCommand,
  revealCommand,
  runsCommand,
  cancelCommand,
  feedbackCommand,
  memoryCommand,
  evalCommand,
  localCommand,
  createCompletionCommand(() => COMMANDS),
];
