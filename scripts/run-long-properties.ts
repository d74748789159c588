/**
 * `npm run test:properties:long [-- <rounds>]`: the property tests (every test file that imports fast-check) run
 * `rounds` times (default 10), each with a fresh random seed (`FC_SEED`, test/support/fast-check-seed.ts) instead of
 * the fixed one the default run uses. Each round prints its seed; a failing property prints its seed, path and
 * counterexample, and `FC_SEED=<seed> npx vitest run <file>` replays it. Stops at the first failing round.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

/** Every `*.test.ts` under `folder` (relative to the root) that imports fast-check. */
export function propertyTestFiles(folder = 'test'): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join(folder, file))
    .filter((file) => /from 'fast-check'/.test(readFileSync(join(root, file), 'utf8')))
    .sort();
}

if (import.meta.main) {
  const rounds = Number(process.argv[2] ?? 10);
  if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error('rounds must be a positive integer');
  const files = propertyTestFiles();
  for (let round = 1; round <= rounds; round++) {
    const seed = Math.floor(Math.random() * 0x7fff_ffff);
    console.log(`== round ${round}/${rounds}: FC_SEED=${seed} (${files.length} files)`);
    const result = spawnSync('npx', ['vitest', 'run', ...files], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, FC_SEED: String(seed) },
    });
    if (result.status !== 0) {
      console.log(`round ${round} FAILED with FC_SEED=${seed}`);
      process.exit(result.status ?? 1);
    }
  }
}
