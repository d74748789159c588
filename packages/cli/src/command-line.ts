import { parseArgs } from 'node:util';
import { replaceUnsafeCharacters } from '@diagnosis/core/unsafe-characters';

/**
 * The exit codes of every command, stable so scripts can branch on them. NOTE: 2 means "a fallback report" for
 * `diagnose` and `demo`, "the run had already ended (PUBLISHED, FALLBACK or FAILED)" for `cancel`.
 */
export const EXIT = Object.freeze({
  OK: 0,
  /** The run FAILED (or ended CANCELLED on its own). */
  FAILED: 1,
  /** The run ended with a FALLBACK report; `cancel`: the run had already ended PUBLISHED, FALLBACK or FAILED. */
  FALLBACK: 2,
  /** No run with that id in the table. */
  NOT_FOUND: 3,
  /** Bad usage: an unknown command or option, a missing or bad value, an id of the wrong form. */
  USAGE: 64,
  /** Something the command needs is not there: DynamoDB (Java), the model key. */
  UNAVAILABLE: 69,
  /** A bug: an error nobody planned for (its class is named, never its text). */
  INTERNAL: 70,
  /** stdout or stderr failed (a closed pipe is not a failure: exit 0). */
  IO: 74,
  /** A setting in the environment is invalid (the keys are named, never their values). */
  CONFIG: 78,
  /** Stopped with Ctrl-C. */
  INTERRUPTED: 130,
});

/** A command's expected failure: one line for stderr, and the exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;

  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

export const usageError = (message: string) => new CliError(EXIT.USAGE, message);

/** What a command writes to and reads from; the process's own in `main.ts`, a capture in tests. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The user's environment, read only: settings are built from it as an object, never written back. */
  env: Readonly<Record<string, string | undefined>>;
  /** The names `env` took from a `.env` file (absent: none), so a refusal can say where a name came from. */
  dotEnvKeys?: ReadonlySet<string>;
  /** Whether stderr is a terminal (the live view then shows a spinner). */
  stderrIsTTY: boolean;
  /** Registers a handler for Ctrl-C / SIGTERM; returns its removal. */
  onInterrupt: (handler: () => void) => () => void;
}

export interface OptionSpec {
  /** The long name, without `--`. */
  name: string;
  type: 'string' | 'boolean';
  /** For string options: how the value is shown in help (`<id>`, `<seconds>`). */
  value?: string;
  description: string;
  /** The default as shown in help (for a whole-number option, the value `wholeNumberOption` takes when unset). */
  default?: string;
  /** For a whole-number option: its bounds, shown in help and checked by `wholeNumberOption`. */
  range?: readonly [minimum: number, maximum: number];
}

/** One command of the `diagnosis` bin: its help and what it runs. */
export interface Command {
  name: string;
  /** One line for the bin's command list. */
  summary: string;
  /** The argument synopsis after `diagnosis <name>`, e.g. `"<query>" [options]`. */
  synopsis: string;
  /** A few sentences: what it does and on which table. */
  description: string[];
  /** Positional arguments, shown in help: name and meaning. */
  arguments?: [string, string][];
  options: OptionSpec[];
  examples: string[];
  /**
   * The exit codes only this command returns, as `[code, meaning]`, and its own words for a code every command can
   * return (`BIN_EXIT_MEANINGS`). Its help lists both, in order; a test derives from the code which codes each
   * command can return and holds the help to exactly those.
   */
  exitCodes: [number, string][];
  /** The settings (environment variables) it reads, shown in its help with their forms; `[]`: none. */
  settings: readonly string[];
  run(args: ParsedArgs, io: CliIo): Promise<number>;
}

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Parses a command's arguments strictly against its options (`--help` is every command's). Every refusal is a
 * one-line UsageError naming the option, never Node's own message with its hints.
 */
export function parseCommandArgs(command: Command, argv: string[]): ParsedArgs | 'help' {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = {
    help: { type: 'boolean', short: 'h' },
  };
  for (const option of command.options) options[option.name] = { type: option.type };
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw usageError(describeParseError(error, command));
  }
  if (parsed.values.help === true) return 'help';
  const values: Record<string, string | boolean | undefined> = {};
  for (const [key, value] of Object.entries(parsed.values)) {
    if (typeof value === 'string' || typeof value === 'boolean') values[key] = value;
  }
  return { values, positionals: parsed.positionals };
}

function describeParseError(error: unknown, command: Command): string {
  const code = (error as { code?: unknown }).code;
  const message = String((error as { message?: unknown }).message ?? '');
  const option = /'(-{1,2}[^' ]*)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option ${printable(option)}`;
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const spec = command.options.find((candidate) => option.replace(/^--/, '').startsWith(candidate.name));
    return spec?.type === 'string'
      ? `option --${spec.name} needs a value ${spec.value ?? ''}`.trimEnd()
      : `option ${printable(option)} takes no value`;
  }
  return 'cannot read the arguments';
}

/** A run id's form in words (the core's RUN_ID_PATTERN), for the commands that refuse another. */
export const RUN_ID_FORM = 'up to 80 letters, digits and _ . -, starting with a letter or digit';

/**
 * Text as a command prints it on stdout: every control character but newline and tab (ESC, CSI, C1, carriage return)
 * and every bidirectional control written as its `\uXXXX` escape. NOTE: what a command prints holds what a model
 * wrote and what a log carried (a Draft's conclusion, an observation in `trace`): a model steered by an injection could
 * otherwise clear the screen, retitle the window or set the clipboard (OSC 52). Inside JSON output the escape is the
 * same string, so `--json` stays exact.
 */
export function terminalSafe(text: string): string {
  return replaceUnsafeCharacters(text, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * At most 60 printable characters of something the user typed, for an error line: every code unit outside printable
 * ASCII and U+00A0–U+FFFF (tab, newline, the other controls) and every unsafe character (the controls and the
 * bidirectional marks, overrides and isolates of `replaceUnsafeCharacters`) shown as `?`.
 */
export function printable(text: string): string {
  const clean = replaceUnsafeCharacters(text.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '?'), () => '?');
  return clean.length > 60 ? `${clean.slice(0, 59)}…` : clean;
}

/**
 * What the exit codes every command can return mean, unless the command says it more precisely: 0 when it did its
 * work; 64 for the arguments the bin parses (an unknown option, a missing value); 70 for an error nobody planned;
 * 74 when its output fails; 78 for a `.env` the bin refuses before any command runs (too large, unreadable, `KEY=`
 * with no value) and, for a command that reads settings, a misspelt or invalid one; 130 for Ctrl-C (interrupts.ts).
 */
const BIN_EXIT_MEANINGS: Readonly<Record<number, string>> = Object.freeze({
  [EXIT.OK]: 'done',
  [EXIT.USAGE]: 'bad usage: an unknown option, a missing or bad value, a bad argument',
  [EXIT.INTERNAL]: 'an unplanned error (its class is named, never its text)',
  [EXIT.IO]: 'stdout or stderr failed (a reader that stops early, `| head`, is not a failure)',
  [EXIT.CONFIG]:
    'a .env that cannot be read or has a KEY= line, or a misspelt or invalid setting (named, never its value)',
  [EXIT.INTERRUPTED]: 'stopped with Ctrl-C (or SIGTERM)',
});

/** The width a help wraps its two-column entries at: no line of a help but an example is wider. */
const HELP_WIDTH = 120;

/**
 * A command's help text, one format for every command: usage, description, arguments, options, the settings it reads
 * (their lines given by the caller, see setting-help.ts), examples, and every exit code it can return (its own and
 * the bin's, `BIN_EXIT_MEANINGS`, in order). A whole-number option's bounds are written `from 1 to 200`, as its
 * refusal writes them; two-column entries wrap at `HELP_WIDTH`.
 */
export function renderCommandHelp(command: Command, settingLines: readonly (readonly [string, string])[] = []): string {
  const options: [string, string][] = command.options.map((option) => [optionLabel(option), optionText(option)]);
  options.push(['-h, --help', 'show this help']);
  const width = Math.max(
    ...options.map(([label]) => label.length),
    ...(command.arguments ?? []).map(([n]) => n.length),
  );
  const lines = [`usage: diagnosis ${command.name} ${command.synopsis}`.trimEnd(), '', ...command.description];
  if (command.arguments !== undefined && command.arguments.length > 0) {
    lines.push('', 'arguments:', ...entries(command.arguments, width));
  }
  lines.push('', 'options:', ...entries(options, width));
  if (settingLines.length === 0) lines.push('', 'settings: none');
  else {
    lines.push('', 'settings (a flag, then the environment, then .env in this folder, then the default):');
    lines.push(...entries(settingLines, Math.max(...settingLines.map(([key]) => key.length))));
  }
  if (command.examples.length > 0) lines.push('', 'examples:', ...command.examples.map((example) => `  ${example}`));
  lines.push('', 'exit codes:', ...entries(exitCodeLines(command), 2));
  return `${lines.join('\n')}\n`;
}

/** The command's exit codes with the bin's, in order: the command's own words first. */
function exitCodeLines(command: Pick<Command, 'exitCodes'>): [string, string][] {
  const meanings = new Map<number, string>(
    Object.entries(BIN_EXIT_MEANINGS).map(([code, text]) => [Number(code), text]),
  );
  for (const [code, meaning] of command.exitCodes) meanings.set(code, meaning);
  return [...meanings].sort(([a], [b]) => a - b).map(([code, meaning]) => [String(code), meaning]);
}

/** Two columns: the label padded to `width`, the text wrapped at HELP_WIDTH under its own first column. */
function entries(rows: readonly (readonly [string, string])[], width: number): string[] {
  const indent = width + 4;
  return rows.flatMap(([label, text]) => {
    const wrapped = wrap(text, Math.max(HELP_WIDTH - indent, 30));
    return wrapped.map((line, index) =>
      `${index === 0 ? `  ${label.padEnd(width)}  ` : ' '.repeat(indent)}${line}`.trimEnd(),
    );
  });
}

/** Words into lines of at most `width` characters (a longer word stands on its own line). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

function optionLabel(option: OptionSpec): string {
  return option.type === 'string' ? `--${option.name} ${option.value ?? '<value>'}` : `--${option.name}`;
}

function optionText(option: OptionSpec): string {
  const range = option.range === undefined ? '' : `, from ${option.range[0]} to ${option.range[1]}`;
  return `${option.description}${range}${option.default === undefined ? '' : ` (default: ${option.default})`}`;
}

/** A whole number within bounds from a string option, or a UsageError naming the option. */
function wholeNumber(name: string, text: string, minimum: number, maximum: number): number {
  const value = /^\d{1,9}$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw usageError(`--${name} must be a whole number from ${minimum} to ${maximum}, not '${printable(text)}'`);
  }
  return value;
}

/**
 * A whole-number option's value within its `range` (the one its help shows), its `default` when it was not given;
 * undefined when it was not given and has no default. A bad value is a UsageError naming the option.
 */
export function wholeNumberOption(option: OptionSpec, given: string | boolean | undefined): number | undefined {
  if (option.range === undefined) throw new TypeError(`--${option.name} has no range`);
  const text = given === undefined ? option.default : String(given);
  return text === undefined ? undefined : wholeNumber(option.name, text, option.range[0], option.range[1]);
}
