/**
 * The security-critical modules under mutation testing (`npm run test:mutation`, stryker.config.mjs), the fast unit
 * tests that must kill their mutants, and the mutants argued equivalent (they survive every test because no input can
 * tell them from the original). Each module must reach {@link MUTATION_SCORE_THRESHOLD} on its own
 * (scripts/check-mutation-scores.ts reads Stryker's JSON report); the equivalent mutants count as survivors.
 */

/** The lowest mutation score (killed + timed out, over all valid mutants) a listed module may have. */
export const MUTATION_SCORE_THRESHOLD = 90;

/** A mutant no test can kill: where (the mutated code as Stryker prints it), which mutator, and why. */
export interface EquivalentMutant {
  mutator: string;
  original: string;
  replacement: string;
  reason: string;
}

export interface MutationTarget {
  /** The source file, relative to the repository root. */
  module: string;
  /** The unit tests that exercise it (relative to the root). */
  tests: readonly string[];
  equivalent: readonly EquivalentMutant[];
}

export const MUTATION_TARGETS: readonly MutationTarget[] = [
  {
    module: 'packages/core/src/harness/budget-policy.ts',
    tests: ['test/unit/core/harness/budget-policy.test.ts'],
    equivalent: [],
  },
  {
    module: 'packages/core/src/release/evidence-guard.ts',
    tests: ['test/unit/core/release/evidence-guard.test.ts', 'test/unit/core/release/evidence-guard.single-pass.test.ts'],
    equivalent: [],
  },
  {
    module: 'packages/core/src/release/semantic-guard.ts',
    tests: ['test/unit/core/release/semantic-guard.test.ts', 'test/unit/core/release/semantic-guard.single-pass.test.ts'],
    equivalent: [],
  },
  {
    module: 'packages/core/src/release/judge/judge-verdicts.ts',
    tests: ['test/unit/core/release/semantic-guard.test.ts'],
    equivalent: [],
  },
  {
    module: 'packages/core/src/access/wildcard-match.ts',
    tests: ['test/unit/core/access/wildcard-match.test.ts'],
    equivalent: [],
  },
  {
    module: 'packages/core/src/access/tenant-access.ts',
    tests: ['test/unit/core/access/tenant-access.test.ts'],
    equivalent: [],
  },
];

/** Every source file Stryker mutates. */
export const MUTATED_MODULES: readonly string[] = MUTATION_TARGETS.map((target) => target.module);

/** Every test file the mutation run executes (deduplicated). */
export const MUTATION_TEST_FILES: readonly string[] = [...new Set(MUTATION_TARGETS.flatMap((target) => target.tests))];
