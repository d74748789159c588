/**
 * `npm run test:quick [-- <base>]`: the edit loop's tests — the unit tests (no Java, no database, no network) of the
 * parts the working tree changed since `base` (default: the merge base with `main`, else `HEAD`), committed or not.
 * A change under packages/<name>/ runs test/unit/<name>/; functions/ runs test/unit/functions/; deploy/ and
 * sst.config.ts run test/unit/deploy/; docs and top-level pages run test/unit/docs/; a changed unit test file runs
 * itself. A change to anything else (the root config, the test support) runs every unit test. Nothing changed: nothing
 * runs. The integration and e2e projects are `npm test`'s.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

const git = (args: string[]): string => {
  const result = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : '';
};

/** The unit test folders or files to run for the changed paths; `undefined` means every unit test. */
export function unitTargetsOf(changed: readonly string[]): string[] | undefined {
  const targets = new Set<string>();
  for (const path of changed) {
    const packageName = /^packages\/([^/]+)\//.exec(path)?.[1];
    if (packageName !== undefined) targets.add(`test/unit/${packageName}`);
    else if (path.startsWith('functions/')) targets.add('test/unit/functions');
    else if (path.startsWith('deploy/') || path === 'sst.config.ts') targets.add('test/unit/deploy');
    else if (path.startsWith('docs/') || /^[A-Z]+\.md$/.test(path)) targets.add('test/unit/docs');
    else if (path.startsWith('scripts/')) targets.add('test/unit/scripts');
    else if (path.startsWith('test/unit/')) {
      if (path.endsWith('.test.ts')) targets.add(path);
      else return undefined;
    } else if (path.startsWith('test/') || path.startsWith('eval/') || path.startsWith('examples/')) {
      // Integration and e2e tests, scenarios and examples: `npm test`'s, not the edit loop's.
    } else if (path.startsWith('bench/')) {
      // The benches have their own smoke run.
    } else return undefined;
  }
  return [...targets].filter((target) => existsSync(join(root, target))).sort();
}

if (import.meta.main) {
  const base = process.argv[2] ?? (git(['merge-base', 'HEAD', 'main']) || 'HEAD');
  const changed = [
    ...git(['diff', '--name-only', base]).split('\n'),
    ...git(['ls-files', '--others', '--exclude-standard']).split('\n'),
  ].filter((path) => path !== '');
  const targets = unitTargetsOf(changed);
  if (targets !== undefined && targets.length === 0) {
    console.log(`test:quick: no unit tests cover what changed since ${base.slice(0, 12)} (${changed.length} files)`);
    process.exit(0);
  }
  const args = ['vitest', 'run', '--project', 'unit', '--project', 'unit-isolated', ...(targets ?? [])];
  console.log(`test:quick: npx ${args.join(' ')}`);
  const result = spawnSync('npx', args, { cwd: root, stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
