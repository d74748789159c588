/**
 * The pages that show the whole service stay true to what is deployed and to the tree: the README and
 * docs/architecture.md name every function the deployment creates (`scripts/lambda-functions.ts`, the list
 * sst.config.ts builds from), and docs/development.md's layout names every folder of the repository's top level,
 * every capability folder of `functions/` and every package.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAMBDA_FUNCTIONS } from '../../../scripts/lambda-functions.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The names in `names` that `text` does not mention as a whole word. */
const unnamed = (text: string, names: string[]) =>
  names.filter((name) => !new RegExp(`(?<![\\w-])${name}(?![\\w-])`).test(text));

/** The `text` code block of docs/development.md's "Layout" section. */
function layoutBlock(page: string): string {
  const section = page.slice(page.indexOf('## Layout'));
  const block = /```text\n([\s\S]*?)```/.exec(section);
  return block?.[1] ?? '';
}

/** Tracked top-level folders, `functions/`' folders and the packages, as the layout writes them (`name/`). */
function folders(): string[] {
  const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n');
  const top = new Set(tracked.filter((path) => path.includes('/')).map((path) => path.split('/')[0] ?? ''));
  const capabilities = readdirSync(join(ROOT, 'functions'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'node_modules')
    .map((entry) => `${entry.name}/`);
  const packages = readdirSync(join(ROOT, 'packages')).map((name) => `packages/${name}/`);
  return [...[...top].map((name) => `${name}/`), ...capabilities, ...packages];
}

describe('the pages that show the whole service', () => {
  const deployed = Object.keys(LAMBDA_FUNCTIONS);

  it('name every deployed function in the README and in docs/architecture.md', () => {
    expect(deployed.length).toBeGreaterThan(10);
    expect({
      'README.md': unnamed(read('README.md'), deployed),
      'docs/architecture.md': unnamed(read('docs/architecture.md'), deployed),
    }).toEqual({ 'README.md': [], 'docs/architecture.md': [] });
  });

  it("give development.md's layout every top-level folder, every capability of functions/ and every package", () => {
    const layout = layoutBlock(read('docs/development.md'));

    expect(layout).not.toBe('');
    expect(folders().filter((folder) => !layout.includes(folder))).toEqual([]);
  });

  it('tell a name from a longer one that contains it', () => {
    expect(unnamed('GetRunAudit and SlackWork-queue', ['GetRun', 'SlackWork', 'GetRunAudit'])).toEqual([
      'GetRun',
      'SlackWork',
    ]);
  });
});
