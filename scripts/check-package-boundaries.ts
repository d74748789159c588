/**
 * The package boundaries, checked on the source itself (`node scripts/check-package-boundaries.ts`, and by
 * test/unit/repo/package-boundaries.test.ts in `npm test`):
 * 1. no relative import leaves its package (a package reaches another only by its name);
 * 2. the arrows point down: core ← functions ← devkit ← eval ← cli (core imports none of ours; nothing deployed —
 *    core, functions — imports devkit, eval or cli), type-only imports included;
 * 3. a package imports another of ours only if its package.json declares it.
 * Knip (`npm run lint`) checks the third rule for every other dependency. The repository's root (tests, bench,
 * scripts, deploy, sst.config.ts) is not a package of the product: unit tests reach the modules they test by path.
 * Imports are read with oxc-parser (knip's own parser), so `import type`, re-exports and `import()` all count.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';

/** Each package of ours: its folder (relative to the root) and the packages of ours it may import. */
export const PACKAGE_LAYERS: Readonly<Record<string, { dir: string; mayImport: readonly string[] }>> = Object.freeze({
  '@diagnosis/core': { dir: 'packages/core', mayImport: [] },
  '@diagnosis/functions': { dir: 'functions', mayImport: ['@diagnosis/core'] },
  '@diagnosis/devkit': { dir: 'packages/devkit', mayImport: ['@diagnosis/core', '@diagnosis/functions'] },
  '@diagnosis/eval': {
    dir: 'packages/eval',
    mayImport: ['@diagnosis/core', '@diagnosis/functions', '@diagnosis/devkit'],
  },
  '@diagnosis/cli': {
    dir: 'packages/cli',
    mayImport: ['@diagnosis/core', '@diagnosis/functions', '@diagnosis/devkit', '@diagnosis/eval'],
  },
});

export interface BoundaryViolation {
  rule: 'relative-import-leaves-package' | 'upward-import' | 'undeclared-package';
  file: string;
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|cts)$/.test(entry.name)) files.push(path);
    }
  };
  walk(dir);
  return files;
}

/** Every module specifier of a file: static imports (type-only too), re-exports, and string `import()` calls. */
export function specifiersOf(path: string, code: string): string[] {
  const { module } = parseSync(path, code);
  const specifiers = module.staticImports.map((entry) => entry.moduleRequest.value);
  for (const entry of module.staticExports) {
    for (const exported of entry.entries) if (exported.moduleRequest) specifiers.push(exported.moduleRequest.value);
  }
  for (const call of module.dynamicImports) {
    const text = code.slice(call.moduleRequest.start, call.moduleRequest.end).trim();
    const literal = /^(['"`])([^'"`]*)\1$/.exec(text);
    if (literal?.[2] !== undefined) specifiers.push(literal[2]);
  }
  return specifiers;
}

function ownPackageOf(specifier: string): string | undefined {
  const match = /^(@diagnosis\/[^/]+)/.exec(specifier);
  return match?.[1];
}

/** The violations in the tree at `root` (empty when the boundaries hold). */
export function checkPackageBoundaries(root: string): BoundaryViolation[] {
  const violations: BoundaryViolation[] = [];
  for (const [name, layer] of Object.entries(PACKAGE_LAYERS)) {
    const packageDir = resolve(root, layer.dir);
    if (!existsSync(packageDir)) continue;
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.devDependencies ?? {}),
    ]);
    for (const file of sourceFiles(packageDir)) {
      const shown = relative(root, file).split(sep).join('/');
      for (const specifier of specifiersOf(file, readFileSync(file, 'utf8'))) {
        if (specifier.startsWith('.')) {
          const target = resolve(dirname(file), specifier);
          if (target !== packageDir && !target.startsWith(packageDir + sep)) {
            violations.push({ rule: 'relative-import-leaves-package', file: shown, specifier });
          }
          continue;
        }
        const other = ownPackageOf(specifier);
        if (other === undefined || other === name) continue;
        if (!layer.mayImport.includes(other)) violations.push({ rule: 'upward-import', file: shown, specifier });
        else if (!declared.has(other)) violations.push({ rule: 'undeclared-package', file: shown, specifier });
      }
    }
  }
  return violations;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const violations = checkPackageBoundaries(root);
  for (const violation of violations)
    console.log(`${violation.rule}: ${violation.file} imports ${violation.specifier}`);
  console.log(violations.length === 0 ? 'package boundaries hold' : `${violations.length} violation(s)`);
  process.exitCode = violations.length === 0 ? 0 : 1;
}
