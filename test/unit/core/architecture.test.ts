import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../../packages/core/src');

/**
 * The rooms of the core, lowest first. NOTE: a folder may import only from folders listed before it (or from itself):
 * no arrow runs back up, not even for a type — move the type down instead. `index.ts` files at the top of the
 * package may import anything.
 */
const LAYERS = [
  ['run'],
  ['errors', 'access', 'trigger', 'change'],
  ['config'],
  ['tools', 'draft'],
  ['store'],
  ['harness'],
  ['agent'],
  ['release'],
  ['report'],
  ['service'],
];
const rank = new Map(LAYERS.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(folder, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(folder, entry.name)]
        : [],
  );
}

/** The top folder of a path inside src (`errors` for `errors.ts`). */
const roomOf = (path: string) => relative(SRC, path).split('/')[0]?.replace(/\.ts$/, '') ?? '';

describe('the core’s folder layers', () => {
  const files = sourceFiles(SRC).filter((file) => roomOf(file) !== 'index');

  it('knows every folder of the core', () => {
    expect([...new Set(files.map(roomOf))].filter((room) => !rank.has(room))).toEqual([]);
  });

  it('has no import that points up a layer', () => {
    const upward: string[] = [];
    for (const file of files) {
      const from = roomOf(file);
      for (const [, target] of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const to = roomOf(resolve(file, '..', target ?? ''));
        if (to === from || to === 'index') continue;
        if ((rank.get(to) ?? Number.POSITIVE_INFINITY) >= (rank.get(from) ?? 0)) {
          upward.push(`${relative(SRC, file)} -> ${target}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });
});
