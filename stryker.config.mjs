/**
 * StrykerJS over the security-critical modules (`npm run test:mutation`; docs/development.md, "Mutation testing").
 * The modules, their tests and the notes on equivalent mutants are in test/mutation/mutation-targets.ts.
 *
 * NOTE: `inPlace: true` is required. The workspace packages (`@diagnosis/core`, `@diagnosis/functions`) are symlinks in
 * node_modules to the source folders; in Stryker's copied sandbox they would still point at the unmutated originals,
 * and every mutant would "survive". In place, Stryker writes each mutated file over the source and restores it after
 * the run (keeping a backup in .stryker-tmp/): never edit those files while a run is going.
 */
import { MUTATED_MODULES } from './test/mutation/mutation-targets.ts';

export default {
  packageManager: 'npm',
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // NOTE: `related: false`, so a static mutant (module-level code) reruns every mutation test file: keep patterns and
  // constants inside the functions that use them. It was turned off because runs reported evidence-guard.ts's mutants
  // as not covered, but that was its past-incident code, whose tests were missing from its list (mutation-targets.ts):
  // `related: true` found its tests through `@diagnosis/core` and gave the same 99.0 % on 2026-12-03 (BENCHMARKS.md at
  // d8980dd).
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  inPlace: true,
  // NOTE: no `// @ts-nocheck` written into the sources: by default Stryker adds it to every TypeScript file of the
  // project (in place, that is the working tree) for its type checker, which is not used here (vitest strips types).
  disableTypeChecks: false,
  mutate: [...MUTATED_MODULES],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  // NOTE: generous, so that on a loaded machine only a mutant that really loops times out (a timeout counts as
  // detected): a mutant of a module-level schema or pattern reruns every test after a reload.
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress-append-only', 'json', 'html'],
  jsonReporter: { fileName: '.data/mutation/mutation-report.json' },
  htmlReporter: { fileName: '.data/mutation/mutation-report.html' },
  // NOTE: committed (CI's check, `npm run test:mutation:incremental`, reuses it on a fresh clone): each mutant's result
  // with the code it mutated and the tests that covered and killed it. Written only by runs with `--incremental`;
  // `npm run test:mutation` rewrites it whole (`--force`). Never run `--incremental` with `--mutate`: the file would
  // then hold only those modules.
  incrementalFile: 'test/mutation/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // NOTE: no `break`: the threshold holds for each module on its own, which scripts/check-mutation-scores.ts checks
  // after the run (`npm run test:mutation`); Stryker's own threshold only sees the whole run.
  thresholds: { high: 95, low: 90, break: null },
};
