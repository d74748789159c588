import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

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
