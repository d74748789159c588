import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../../functions');

/**
 * The capabilities of `functions/`, lowest first. NOTE: a folder may import only from folders listed before it (or
 * from itself), not even for a type: `lambda/` is the platform floor (cold start, linked settings, observability, HTTP
 * events, the error table) and imports none of the others; `local/` (what `serve` and the command line compose) is
 * imported by the package's entry (`index.ts`) alone. The files at the top of the package are the deployed entries,
 * `index.ts` and `infrastructure.ts`: they may import any folder but `local/`.
 */
const LAYERS = [['lambda'], ['diagnose', 'delivery', 'ratings'], ['triggers', 'api', 'slack'], ['changes'], ['local']];
const rank = new Map(LAYERS.flatMap((folders, index) => folders.map((folder) => [folder, index] as const)));
const TOP = '.';

/** Every relative module specifier of a file: imports, re-exports, `import()` and `typeof import()`. */
const relativeImports = (code: string) =>
  [...code.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g)].map((match) => match[1] ?? '');

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

/** The folder of a path inside functions/ (`.` for a file at the top). */
const roomOf = (path: string) => (path.includes('/') ? (path.split('/')[0] ?? TOP) : TOP);

/** Each file's imports of other files of the package, as paths inside functions/. */
function importGraph(files: ReadonlyMap<string, string>): Map<string, string[]> {
  return new Map(
    [...files].map(([file, code]) => [
      file,
      relativeImports(code).map((target) => relative(ROOT, resolve(ROOT, dirname(file), target))),
    ]),
  );
}

/** The imports that break the layer rule, as `<file> -> <target>`. */
function violationsOf(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const violations: string[] = [];
  for (const [file, targets] of graph) {
    const from = roomOf(file);
    for (const target of targets) {
      const to = roomOf(target);
      if (to === from) continue;
      const allowed =
        to === 'local'
          ? file === 'index.ts'
          : from === TOP || (rank.get(to) ?? Number.POSITIVE_INFINITY) < (rank.get(from) ?? 0);
      if (!allowed) violations.push(`${file} -> ${target}`);
    }
  }
  return violations;
}

/** Circles of imports a depth-first walk meets (none when there is none), each from its smallest path. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const circles = new Map<string, string[]>();
  const done = new Set<string>();
  const visit = (file: string, path: string[]) => {
    for (const target of graph.get(file) ?? []) {
      const at = path.indexOf(target);
      if (at >= 0) {
        const circle = path.slice(at);
        const first = circle.indexOf([...circle].sort()[0] ?? '');
        const turned = [...circle.slice(first), ...circle.slice(0, first)];
        circles.set(turned.join(' -> '), turned);
      } else if (!done.has(target)) {
        visit(target, [...path, target]);
      }
    }
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file, [file]);
  return [...circles.values()];
}

const tree = () => new Map(sourceFiles(ROOT).map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));

describe('the capabilities of functions/', () => {
  it('knows every folder of the package', () => {
    const folders = new Set([...tree().keys()].map(roomOf).filter((room) => room !== TOP));
    expect([...folders].filter((folder) => !rank.has(folder))).toEqual([]);
  });

  it('has no import that points up a layer, and none of local/ but the package entry', () => {
    expect(violationsOf(importGraph(tree()))).toEqual([]);
  });

  it('has no circle of imports', () => {
    expect(circlesOf(importGraph(tree()))).toEqual([]);
  });

  it('refuses an arrow up a layer, into local/, or out of lambda/ when one is written', () => {
    const graph = importGraph(
      new Map([
        ['lambda/observability.ts', "import { x } from '../api/run-route.ts';"],
        ['delivery/publish.ts', "import type { X } from '../slack/slack-work.ts';"],
        ['api/feedback-handler.ts', "const m = () => import('../triggers/trigger-setup.ts');"],
        ['slack/slack-work-setup.ts', "import { y } from '../local/local-api.ts';"],
        ['get-run.ts', "export { z } from './local/local-diagnose.ts';"],
        ['index.ts', "export { w } from './local/local-diagnose.ts';"],
        ['slack/run-card.ts', "import { v } from '../delivery/slack-message.ts';"],
      ]),
    );
    expect(violationsOf(graph)).toEqual([
      'lambda/observability.ts -> api/run-route.ts',
      'delivery/publish.ts -> slack/slack-work.ts',
      'api/feedback-handler.ts -> triggers/trigger-setup.ts',
      'slack/slack-work-setup.ts -> local/local-api.ts',
      'get-run.ts -> local/local-diagnose.ts',
    ]);
  });

  it('finds a circle when files import each other round', () => {
    const graph = importGraph(
      new Map([
        ['slack/b.ts', "import { c } from './c.ts';"],
        ['slack/c.ts', "import { a } from './a.ts';"],
        ['slack/a.ts', "import { b } from './b.ts';"],
      ]),
    );
    expect(circlesOf(graph)).toEqual([['slack/a.ts', 'slack/b.ts', 'slack/c.ts']]);
  });
});
