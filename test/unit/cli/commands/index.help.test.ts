/**
 * Every command's `--help` held to its code (#47): one format for every command, and its exit codes exactly those
 * the code can return — derived here by reading the code, not from a list: every `EXIT.<NAME>` (and a call of
 * `usageError` or `wholeNumber…`: 64) in each module the command's own module reaches through its imports (static
 * and `import()`, type-only ones left out) inside packages/cli/src, with those of the bin itself (run-main.ts and what
 * it reaches but the command table). The names a command reads from the environment (`env.NAME`) are in its settings
 * section, every setting line says what the setting is for, and a whole-number range is written one way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { parseSync } from 'oxc-parser';
import { describe, expect, it } from 'vitest';
import { commandHelp } from '../../../../packages/cli/src/cli.ts';
import { type Command, EXIT } from '../../../../packages/cli/src/command-line.ts';
import { COMMANDS } from '../../../../packages/cli/src/commands/index.ts';

const SOURCE = resolve(import.meta.dirname, '../../../../packages/cli/src');
const COMMAND_TABLE = resolve(SOURCE, 'commands/index.ts');
const USAGE_CALLS = new Set(['usageError', 'wholeNumber', 'wholeNumberOption']);

interface ModuleFacts {
  imports: string[];
  exitNames: string[];
  envNames: string[];
  /** Exit codes written as numbers where an `EXIT` name belongs: each a line for the failure message. */
  literalExits: string[];
}

type Node = { type?: string; [key: string]: unknown };

/** What one module imports (its own package only), which exit codes it names, which variables it reads. */
function readModule(path: string): ModuleFacts {
  const code = readFileSync(path, 'utf8');
  const facts: ModuleFacts = { imports: [], exitNames: [], envNames: [], literalExits: [] };
  const follow = (specifier: unknown) => {
    if (typeof specifier === 'string' && specifier.startsWith('.'))
      facts.imports.push(resolve(dirname(path), specifier));
  };
  const where = (node: Node) => `${relative(SOURCE, path)}:${code.slice(0, Number(node.start)).split('\n').length}`;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const current = node as Node;
    const specifiers = (current.specifiers ?? []) as Node[];
    const typeOnly = specifiers.length > 0 && specifiers.every((entry) => entry.importKind === 'type');
    if (current.type === 'ImportDeclaration' && current.importKind !== 'type' && !typeOnly) {
      follow((current.source as Node).value);
    }
    if ((current.type === 'ExportNamedDeclaration' || current.type === 'ExportAllDeclaration') && current.source) {
      if (current.exportKind !== 'type') follow((current.source as Node).value);
    }
    if (current.type === 'ImportExpression') follow((current.source as Node).value);
    if (current.type === 'MemberExpression') {
      const object = current.object as Node;
      const property = current.property as Node;
      const name = current.computed === true ? property.value : property.name;
      if (object.type === 'Identifier' && object.name === 'EXIT' && typeof name === 'string') {
        facts.exitNames.push(name);
      }
      const isEnv =
        (object.type === 'Identifier' && object.name === 'env') ||
        (object.type === 'MemberExpression' && (object.property as Node).name === 'env');
      if (isEnv && typeof name === 'string' && /^[A-Z][A-Z0-9_]+$/.test(name)) facts.envNames.push(name);
    }
    if (current.type === 'CallExpression' || current.type === 'NewExpression') {
      const callee = current.callee as Node;
      if (callee.type === 'Identifier' && USAGE_CALLS.has(String(callee.name))) facts.exitNames.push('USAGE');
      const first = (current.arguments as Node[])[0];
      const isExit =
        (callee.type === 'Identifier' && callee.name === 'CliError') ||
        (callee.type === 'MemberExpression' && (callee.property as Node).name === 'exit');
      if (isExit && first !== undefined && containsNumber(first)) facts.literalExits.push(where(current));
    }
    if (current.type === 'ReturnStatement' && path.startsWith(resolve(SOURCE, 'commands'))) {
      const argument = current.argument as Node | null;
      if (argument !== null && containsNumber(argument)) facts.literalExits.push(where(current));
    }
    for (const [key, value] of Object.entries(current)) if (key !== 'parent') visit(value);
  };
  visit(parseSync(path, code).program);
  return facts;
}

/** A number literal as the value itself or a branch of a conditional (`x ? 1 : EXIT.OK`). */
function containsNumber(node: Node): boolean {
  if (node.type === 'Literal') return typeof node.value === 'number';
  if (node.type === 'ConditionalExpression') {
    return containsNumber(node.consequent as Node) || containsNumber(node.alternate as Node);
  }
  return false;
}

/** Every module reached from `entry` inside packages/cli/src (the command table left out: each command apart). */
function reach(entry: string): Map<string, ModuleFacts> {
  const reached = new Map<string, ModuleFacts>();
  const pending = [entry];
  while (pending.length > 0) {
    const path = pending.pop() as string;
    if (reached.has(path) || !path.startsWith(SOURCE) || path === COMMAND_TABLE) continue;
    const facts = readModule(path);
    reached.set(path, facts);
    pending.push(...facts.imports);
  }
  return reached;
}

const CODE_OF_NAME = new Map<string, number>(Object.entries(EXIT));

function exitCodesOf(modules: Iterable<ModuleFacts>): Set<number> {
  const codes = new Set<number>();
  for (const facts of modules) {
    for (const name of facts.exitNames) {
      const code = CODE_OF_NAME.get(name);
      if (code === undefined) throw new Error(`EXIT.${name} is no exit code`);
      codes.add(code);
    }
  }
  return codes;
}

/** The module that defines a command: commands/<name>.ts. */
function moduleOf(command: Command): string {
  const path = resolve(SOURCE, `commands/${command.name}.ts`);
  if (!existsSync(path)) throw new Error(`no module commands/${command.name}.ts`);
  return path;
}

const HEADINGS = ['usage', 'arguments', 'options', 'settings', 'examples', 'exit codes'];

/** The sections of a help text by heading (`options:` → its lines, blank ones left out). */
function sections(help: string): Map<string, string[]> {
  const result = new Map<string, string[]>();
  let heading = 'usage';
  for (const line of help.split('\n')) {
    const match = /^([a-z ]+)(?: \(.*\))?:(.*)$/.exec(line);
    if (match?.[1] !== undefined && HEADINGS.includes(match[1])) {
      heading = match[1];
      result.set(heading, match[2]?.trim() === '' ? [] : [match[2]?.trim() ?? '']);
    } else if (line.trim() !== '') result.get(heading)?.push(line);
  }
  return result;
}

const BIN = reach(resolve(SOURCE, 'run-main.ts'));

describe('COMMANDS --help', () => {
  it.each(COMMANDS.map((command) => [command.name, command] as const))(
    'lists exactly the exit codes %s can return, derived from its code',
    async (_name, command) => {
      const modules = reach(moduleOf(command));
      const derived = exitCodesOf([...BIN.values(), ...modules.values()]);
      const help = sections(await commandHelp(command));
      const listed = (help.get('exit codes') ?? [])
        .map((line) => /^ {2}(\d+) /.exec(line)?.[1])
        .filter((code) => code !== undefined)
        .map(Number);
      expect(listed).toEqual([...derived].sort((a, b) => a - b));
    },
  );

  it('derives the codes from the code: an exit code is an EXIT name, never a bare number', () => {
    const literal = [...BIN.values(), ...COMMANDS.flatMap((command) => [...reach(moduleOf(command)).values()])]
      .flatMap((facts) => facts.literalExits)
      .filter((line, index, all) => all.indexOf(line) === index);
    expect(literal).toEqual([]);
  });

  it('sees what it is shown: a command that can end FALLBACK, and the bin that refuses a .env', () => {
    const demo = COMMANDS.find((command) => command.name === 'demo') as Command;
    expect(exitCodesOf(reach(moduleOf(demo)).values())).toContain(EXIT.FALLBACK);
    expect(exitCodesOf(BIN.values())).toEqual(
      new Set([EXIT.OK, EXIT.USAGE, EXIT.INTERNAL, EXIT.IO, EXIT.CONFIG, EXIT.INTERRUPTED]),
    );
  });

  it.each(COMMANDS.map((command) => [command.name, command] as const))(
    'shows %s in the one format: usage, options, settings, examples, exit codes, each said',
    async (_name, command) => {
      const text = await commandHelp(command);
      const help = sections(text);
      expect([...help.keys()].filter((heading) => heading !== 'arguments')).toEqual([
        'usage',
        'options',
        'settings',
        'examples',
        'exit codes',
      ]);
      // Two columns: an entry (label, two spaces or more, its text) or the wrapped rest of one, under its text.
      for (const line of [...(help.get('options') ?? []), ...(help.get('exit codes') ?? [])]) {
        expect(line).toMatch(/^( {2}\S(.*\S)? {2,}\S| {6,}\S)/);
      }
      const examples = new Set(help.get('examples'));
      for (const line of text.split('\n')) if (!examples.has(line)) expect(line.length, line).toBeLessThanOrEqual(120);
    },
  );

  it.each(COMMANDS.map((command) => [command.name, command] as const))(
    'names in the help of %s every setting its code reads, each with what it is for',
    async (_name, command) => {
      const read = new Set([...reach(moduleOf(command)).values()].flatMap((facts) => facts.envNames));
      // Who runs the command (feedback's caller) is no setting.
      for (const name of ['USER', 'LOGNAME']) read.delete(name);
      expect(command.settings).toEqual(expect.arrayContaining([...read]));
      const settings = sections(await commandHelp(command)).get('settings') ?? [];
      if (command.settings.length === 0) expect(settings).toEqual(['none']);
      for (const key of command.settings) {
        expect(settings.join('\n')).toMatch(new RegExp(`^ {2}${key} +[^;\\s]`, 'm'));
      }
    },
  );

  it('writes every whole-number range one way, as the refusal does: from 1 to 200', async () => {
    for (const command of COMMANDS) {
      const help = sections(await commandHelp(command));
      const described = [...(help.get('options') ?? []), ...(help.get('settings') ?? [])].join('\n');
      expect(described, command.name).not.toMatch(/\d\s?[-–]\s?\d/);
    }
    const runs = await commandHelp(COMMANDS.find((command) => command.name === 'runs') as Command);
    expect(runs).toMatch(/--limit <n> +how many runs, from 1 to 200 \(default: 20\)/);
  });
});
