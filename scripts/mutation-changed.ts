/**
 * `npm run test:mutation:changed` (CI's bounded mutation check): Stryker over only the security-critical modules a
 * change touches — a module whose source or one of whose tests differs from the merge-base with `main` (or
 * `MUTATION_BASE`), working-tree changes included — then the per-module threshold (scripts/check-mutation-scores.ts).
 * A change to the mutation setup itself (its targets, its Stryker or vitest configuration) selects every module.
 * Nothing touched: nothing runs. No merge-base found (a shallow clone, no `main`): every module, and it says so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { MUTATION_TARGETS } from '../test/mutation/mutation-targets.ts';

const SETUP_FILES = [
  'test/mutation/mutation-targets.ts',
  'stryker.config.mjs',
  'vitest.mutation.config.ts',
  'test/support/fast-check-seed.ts',
];

/** The modules to mutate for a change touching `changed` (repository-relative paths). */
export function modulesToMutate(changed: ReadonlySet<string>): string[] {
  if (SETUP_FILES.some((file) => changed.has(file))) return MUTATION_TARGETS.map((target) => target.module);
  return MUTATION_TARGETS.filter(
    (target) => changed.has(target.module) || target.tests.some((test) => changed.has(test)),
  ).map((target) => target.module);
}

function changedFiles(): Set<string> | null {
  const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
  for (const base of [process.env.MUTATION_BASE, 'main', 'origin/main'].filter((ref) => ref !== undefined)) {
    try {
      const mergeBase = git('merge-base', 'HEAD', base);
      const tracked = git('diff', '--name-only', mergeBase).split('\n');
      const untracked = git('ls-files', '--others', '--exclude-standard').split('\n');
      console.log(`mutation: changes against ${base} (merge-base ${mergeBase.slice(0, 12)})`);
      return new Set([...tracked, ...untracked].filter((file) => file !== ''));
    } catch {
      // this base does not exist here; try the next one
    }
  }
  return null;
}

if (import.meta.main) {
  const changed = changedFiles();
  const modules = changed === null ? MUTATION_TARGETS.map((target) => target.module) : modulesToMutate(changed);
  if (changed === null) console.log('mutation: no merge-base with main found; mutating every module');
  if (modules.length === 0) {
    console.log('mutation: the change touches no security-critical module or its tests; nothing to mutate');
    process.exit(0);
  }
  console.log(`mutation: ${modules.length} module(s): ${modules.join(', ')}`);
  const run = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;
  const stryker = run('npx', ['stryker', 'run', '--mutate', modules.join(',')]);
  const scores = run('node', ['scripts/check-mutation-scores.ts']);
  process.exit(stryker !== 0 ? stryker : scores);
}
