import { readFileSync } from 'node:fs';
import {
  CliError,
  type CliIo,
  type Command,
  EXIT,
  parseCommandArgs,
  printable,
  renderCommandHelp,
  terminalSafe,
} from './command-line.ts';

/** The bin's version: the `@diagnosis/cli` package's. */
export const CLI_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The bin's own help: the commands, the environment they read, where to look next. */
export function renderMainHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'usage: diagnosis <command> [arguments] [options]',
    '       diagnosis --version',
    '',
    'The Diagnosis Agent on this machine: one AI agent gathers read-only evidence (runbooks, logs, MySQL) and returns',
    'an evidence-cited diagnosis, through the same Diagnose function a deployment runs, on DynamoDB Local.',
    '',
    'commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Run `diagnosis <command> --help` for its arguments, options and examples.',
    '',
    'settings: a flag, then the environment, then a .env file in this folder, then the default',
    '  DIAGNOSIS_MODEL_PROFILE   deepseek (default), openai, qwen or openai-compatible (vLLM, Ollama)',
    '  DIAGNOSIS_MODEL_API_KEY, DIAGNOSIS_MODEL_BASE_URL, DIAGNOSIS_MODEL_ID   the model (the profile gives defaults)',
    '  DYNAMODB_ENDPOINT, DIAGNOSIS_TABLE_NAME   another DynamoDB / table (default: DynamoDB Local, diagnosis-local)',
    '  MYSQL_URL   the MySQL of query_mysql      DIAGNOSIS_LOCAL_DATA   where .data/ lives',
    '',
    'examples:',
    '  npm run demo                     # no key needed: the model is scripted',
    '  npx diagnosis diagnose "E1001 的订单从 14:05 开始大量失败，为什么？"',
    '  npx diagnosis runs --limit 5',
    '',
  ].join('\n');
}

/**
 * Runs the bin: `diagnosis <command> …`, `diagnosis --help`, `diagnosis help <command>`. Every failure is one line on
 * stderr (`diagnosis <command>: <what>`) and a stable exit code (`EXIT`), never a stack trace; an unplanned error
 * names only its class.
 */
export async function runCli(argv: string[], io: CliIo, commands: readonly Command[]): Promise<number> {
  const [first, ...rest] = argv;
  if (first === undefined || first === '--help' || first === '-h' || (first === 'help' && rest.length === 0)) {
    (first === undefined ? io.stderr : io.stdout)(renderMainHelp(commands));
    return first === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (first === '--version' || first === '-V') {
    io.stdout(`diagnosis ${CLI_VERSION} (node ${process.version})\n`);
    return EXIT.OK;
  }
  const name = first === 'help' ? rest[0] : first;
  const command = commands.find((candidate) => candidate.name === name);
  if (command === undefined) {
    io.stderr(
      `diagnosis: unknown command '${printable(name ?? '')}' (commands: ${commands.map((candidate) => candidate.name).join(', ')}; see diagnosis --help)\n`,
    );
    return EXIT.USAGE;
  }
  if (first === 'help') {
    io.stdout(await commandHelp(command));
    return EXIT.OK;
  }
  try {
    const parsed = parseCommandArgs(command, rest);
    if (parsed === 'help') {
      io.stdout(await commandHelp(command));
      return EXIT.OK;
    }
    if (command.settings.length > 0) await checkSettingNames(command, io);
    // NOTE: a command's stdout carries what models and logs wrote; it reaches the terminal without its controls.
    return await command.run(parsed, { ...io, stdout: (text) => io.stdout(terminalSafe(text)) });
  } catch (error) {
    const { exitCode, message } = describeFailure(error);
    io.stderr(
      `diagnosis ${command.name}: ${message}${exitCode === EXIT.USAGE ? ` (see diagnosis ${command.name} --help)` : ''}\n`,
    );
    return exitCode;
  }
}

/**
 * Refuses (exit 78) a variable in the project's own namespaces that is no setting, with the nearest setting's name,
 * and warns of a near miss elsewhere (setting-names.ts). Only for commands that read settings; the names' schemas
 * are loaded only then.
 */
async function checkSettingNames(command: Command, io: CliIo): Promise<void> {
  const { findSettingNameMistakes, settingSource, unknownSettingsRefusal } = await import('./setting-names.ts');
  const names = Object.keys(io.env).filter((name) => io.env[name] !== undefined);
  const { unknown, nearMisses } = findSettingNameMistakes(names);
  const where = (name: string) => settingSource(io.dotEnvKeys, name);
  for (const miss of nearMisses) {
    io.stderr(
      `diagnosis ${command.name}: warning: ${printable(miss.name)} ${where(miss.name)} is not a setting (did you mean ${miss.suggestion}?); it is ignored\n`,
    );
  }
  if (unknown.length > 0) throw unknownSettingsRefusal(unknown, io.dotEnvKeys);
}

/** A command's help with its settings' lines (the settings' schemas are loaded only for help). */
export async function commandHelp(command: Command): Promise<string> {
  if (command.settings.length === 0) return renderCommandHelp(command);
  const { settingHelpLines } = await import('./setting-help.ts');
  return renderCommandHelp(command, settingHelpLines(command.settings));
}

function describeFailure(error: unknown): { exitCode: number; message: string } {
  if (error instanceof CliError) return { exitCode: error.exitCode, message: error.message };
  const raw = (error as { name?: unknown } | null)?.name;
  // NOTE: the class name only, and only when it looks like one: never an error's message or fields.
  const name = typeof raw === 'string' && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(raw) ? raw : 'Error';
  return { exitCode: EXIT.INTERNAL, message: `internal error (${name})` };
}
