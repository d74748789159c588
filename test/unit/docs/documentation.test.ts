import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../packages/cli/src/command-line.ts';
import { COMMANDS } from '../../../packages/cli/src/commands/index.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const DOCS = join(ROOT, 'docs');
/** The pages this test holds to the house rules: the README, the benchmarks and every page of docs/. */
const PAGES = [
  join(ROOT, 'README.md'),
  join(ROOT, 'BENCHMARKS.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(DOCS, name)),
];
const MAX_README_LINES = 200;
const MAX_LINE = 120;

const read = (path: string) => readFileSync(path, 'utf8');
const name = (path: string) => relative(ROOT, path);

/** The page without fenced code blocks and inline code: what is left is where links live. */
function prose(text: string): string {
  return text.replaceAll(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replaceAll(/`[^`\n]*`/g, '');
}

/** The targets of a page's relative links (`[text](target)` and `[label]: target`), without their `#fragment`. */
function relativeLinks(text: string): string[] {
  const body = prose(text);
  const targets = [
    ...[...body.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] ?? ''),
    ...[...body.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => match[1] ?? ''),
    ...[...body.matchAll(/<a\s[^>]*href="([^"]+)"/g)].map((match) => match[1] ?? ''),
  ];
  return targets
    .filter((target) => !/^([a-z][a-z0-9+.-]*:|#)/i.test(target))
    .map((target) => decodeURI(target.split('#')[0] ?? ''))
    .filter((target) => target !== '');
}

describe('the documentation', () => {
  it(`keeps the README to at most ${MAX_README_LINES} lines`, () => {
    const lines = read(join(ROOT, 'README.md')).trimEnd().split('\n');

    expect(lines.length).toBeLessThanOrEqual(MAX_README_LINES);
  });

  it(`has no line over ${MAX_LINE} characters, code blocks and tables included`, () => {
    const long = PAGES.flatMap((page) =>
      read(page)
        .split('\n')
        .flatMap((line, index) =>
          [...line].length > MAX_LINE ? [`${name(page)}:${index + 1} (${[...line].length})`] : [],
        ),
    );

    expect(long).toEqual([]);
  });

  it('has every relative link point at a file or folder that exists', () => {
    const broken = PAGES.flatMap((page) =>
      relativeLinks(read(page))
        .filter((target) => !existsSync(resolve(dirname(page), target)))
        .map((target) => `${name(page)} → ${target}`),
    );

    expect(broken).toEqual([]);
  });

  it('finds the links it checks, fragments and external addresses left out', () => {
    const page = [
      'See [the API](api.md#routes), [deploy](./deploy.md), [a site](https://example.com) and [top](#top).',
      '```sh',
      'echo "[not a link](nowhere.md)"',
      '```',
      '`[nor this](code.md)` and [ref]: ../BENCHMARKS.md',
      '[label]: settings.md',
    ].join('\n');

    expect(relativeLinks(page)).toEqual(['api.md', './deploy.md', 'settings.md']);
  });
});

/** The pages whose command-line claims a command can check: what a newcomer copies first. */
const COMMAND_PAGES = [join(ROOT, 'README.md'), join(DOCS, 'cli.md')];

/** Every piece of code a page shows: its inline code spans and each line of its fenced blocks. */
function codeOf(text: string): string[] {
  const blocks = [...text.matchAll(/^(```|~~~)[^\n]*\n([\s\S]*?)^\1[^\n]*$/gm)].flatMap((match) =>
    (match[2] ?? '').split('\n'),
  );
  const spans = [...text.replaceAll(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/`([^`\n]+)`/g)].map(
    (match) => match[1] ?? '',
  );
  return [...blocks, ...spans].map((code) => code.trim()).filter((code) => code !== '');
}

const commandNamed = new Map(COMMANDS.map((command) => [command.name, command]));

/**
 * The commands a piece of code runs and the options it gives each: `diagnosis <name> …`, `npx diagnosis <name> …`,
 * `npm run <name> -- …` (a script that runs the bin), or a span that starts with a command's name (docs/cli.md lists
 * them so). The options are the `--words` (bare or in `[…]`) up to the next pipe, `&&`, `;` or comment.
 */
function commandsIn(code: string): { name: string; options: string[] }[] {
  const scripts = JSON.parse(read(join(ROOT, 'package.json'))).scripts as Record<string, string>;
  const calls: { name: string; options: string[] }[] = [];
  for (const part of code.split(/\s*(?:\||&&|;|#)\s*/)) {
    const words = part.split(/\s+/).filter(Boolean);
    const at = words.findIndex((word, index) =>
      word === 'diagnosis'
        ? index === 0 || words[index - 1] === 'npx'
        : word === 'run' && words[index - 1] === 'npm' && /^diagnosis /.test(scripts[words[index + 1] ?? ''] ?? ''),
    );
    const name = at === -1 ? words[0] : words[at] === 'run' ? words[at + 1] : words[at + 1];
    if (name === undefined || (at === -1 && !commandNamed.has(name))) continue;
    if (at !== -1 && (name.startsWith('-') || name.startsWith('<') || name === 'help')) continue;
    const options = [...part.matchAll(/(?:^|[\s[(])(--[a-z][a-z0-9-]*)/g)].map((match) => match[1] ?? '');
    calls.push({ name, options });
  }
  return calls;
}

describe('the README and docs/cli.md, where a command can check them', () => {
  const pages = COMMAND_PAGES.map((path) => ({ page: name(path), code: codeOf(read(path)) }));

  it('finds the code it checks', () => {
    for (const { page, code } of pages) expect(code.length, page).toBeGreaterThan(20);
    const calls = pages.flatMap(({ code }) => code.flatMap(commandsIn));
    expect(new Set(calls.map((call) => call.name)).size).toBeGreaterThan(8);
  });

  it('names only npm scripts package.json has', () => {
    const scripts = Object.keys(JSON.parse(read(join(ROOT, 'package.json'))).scripts as Record<string, string>);
    const unknown = pages.flatMap(({ page, code }) =>
      code
        .flatMap((line) => [...line.matchAll(/\bnpm run ([a-z][\w:-]*)/g)].map((match) => match[1] ?? ''))
        .filter((script) => !scripts.includes(script))
        .map((script) => `${page}: npm run ${script}`),
    );
    expect(unknown).toEqual([]);
  });

  it('names only commands the bin has, each with options it takes', () => {
    const wrong = pages.flatMap(({ page, code }) =>
      code.flatMap((line) =>
        commandsIn(line).flatMap(({ name: command, options }) => {
          const known = commandNamed.get(command);
          if (known === undefined) return [`${page}: diagnosis ${command} (no such command) in \`${line}\``];
          const taken = new Set(['--help', ...known.options.map((option) => `--${option.name}`)]);
          return options.filter((option) => !taken.has(option)).map((option) => `${page}: ${command} ${option}`);
        }),
      ),
    );
    expect(wrong).toEqual([]);
  });

  it('lists in docs/cli.md exactly the exit codes the bin has', () => {
    const text = read(join(DOCS, 'cli.md')).replaceAll(/\s+/g, ' ');
    const paragraph = /\*\*Exit codes\*\*.*?Every refusal/.exec(text)?.[0] ?? '';
    const listed = [...paragraph.matchAll(/(?:\): |; )(\d+) /g)].map((match) => Number(match[1]));
    expect(listed.sort((a, b) => a - b)).toEqual([...new Set(Object.values(EXIT))].sort((a, b) => a - b));
  });

  it('names only files and folders of the repository that exist', () => {
    const missing = pages.flatMap(({ page, code }) =>
      code
        .flatMap((line) => [
          ...line.matchAll(/(?:^|[\s(=])((?:examples|docs|deploy|packages|functions|scripts|bench|eval)\/[\w./-]*\w)/g),
        ])
        .map((match) => match[1] ?? '')
        .filter((path) => !/[<…*{]/.test(path) && !existsSync(join(ROOT, path)))
        .map((path) => `${page}: ${path}`),
    );
    expect(missing).toEqual([]);
  });
});
