import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPackageBoundaries, PACKAGE_LAYERS, specifiersOf } from '../../../scripts/check-package-boundaries.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** A minimal tree of our packages, each with a package.json declaring what `declares` says and the given files. */
function treeWith(files: Record<string, string>, declares: Record<string, string[]> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'boundaries-'));
  trees.push(root);
  for (const [name, layer] of Object.entries(PACKAGE_LAYERS)) {
    mkdirSync(join(root, layer.dir), { recursive: true });
    const dependencies = Object.fromEntries((declares[name] ?? layer.mayImport).map((other) => [other, '0.1.0']));
    writeFileSync(join(root, layer.dir, 'package.json'), JSON.stringify({ name, dependencies }));
  }
  for (const [path, code] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), code);
  }
  return root;
}

describe('checkPackageBoundaries', () => {
  it('finds no violation in this repository', () => {
    expect(checkPackageBoundaries(ROOT)).toEqual([]);
  });

  it('passes a tree whose packages import each other downward by name', () => {
    const root = treeWith({
      'functions/index.ts': "import { x } from '@diagnosis/core';\nimport { y } from './setup/y.ts';\n",
      'functions/setup/y.ts': "export { z } from '../z.ts';\n",
      'packages/cli/src/main.ts': "import '@diagnosis/functions/workflows';\nimport '@diagnosis/devkit';\n",
    });
    expect(checkPackageBoundaries(root)).toEqual([]);
  });

  it('reports a relative import that leaves its package', () => {
    const root = treeWith({
      'packages/cli/src/local/run.ts': "import { compose } from '../../../../functions/setup/diagnose-function.ts';\n",
    });
    expect(checkPackageBoundaries(root)).toEqual([
      {
        rule: 'relative-import-leaves-package',
        file: 'packages/cli/src/local/run.ts',
        specifier: '../../../../functions/setup/diagnose-function.ts',
      },
    ]);
  });

  it('reports a type-only upward import (core importing functions)', () => {
    const root = treeWith({ 'packages/core/src/a.ts': "import type { X } from '@diagnosis/functions';\n" });
    expect(checkPackageBoundaries(root)).toEqual([
      { rule: 'upward-import', file: 'packages/core/src/a.ts', specifier: '@diagnosis/functions' },
    ]);
  });

  it('reports deployed code importing the devkit, even through a re-export or import()', () => {
    const root = treeWith({
      'functions/setup/a.ts': "export { lambdaContext } from '@diagnosis/devkit';\n",
      'functions/setup/b.ts': "export async function f() { return import('@diagnosis/cli'); }\n",
    });
    expect(checkPackageBoundaries(root)).toEqual([
      { rule: 'upward-import', file: 'functions/setup/a.ts', specifier: '@diagnosis/devkit' },
      { rule: 'upward-import', file: 'functions/setup/b.ts', specifier: '@diagnosis/cli' },
    ]);
  });

  it('reports a package of ours imported without being declared', () => {
    const root = treeWith(
      { 'packages/eval/src/a.ts': "import { f } from '@diagnosis/functions';\n" },
      { '@diagnosis/eval': ['@diagnosis/core'] },
    );
    expect(checkPackageBoundaries(root)).toEqual([
      { rule: 'undeclared-package', file: 'packages/eval/src/a.ts', specifier: '@diagnosis/functions' },
    ]);
  });
});

describe('specifiersOf', () => {
  it('reads static, type-only, re-exported and dynamic imports of TypeScript', () => {
    const code = [
      "import type { A } from './a.ts';",
      "import { type B, c } from 'b';",
      "export { d } from '../d.ts';",
      "export * from './e.ts';",
      'const f = <T,>(x: T): T => x;',
      "const g = await import('./g.ts');",
    ].join('\n');
    expect(specifiersOf('x.ts', code)).toEqual(['./a.ts', 'b', '../d.ts', './e.ts', './g.ts']);
  });
});
