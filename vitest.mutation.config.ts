import { defineConfig } from 'vitest/config';
import { MUTATION_TEST_FILES } from './test/mutation/mutation-targets.ts';

/**
 * The unit tests Stryker runs against each mutant (`npm run test:mutation`, stryker.config.mjs): only the fast unit
 * tests of the security-critical modules, so a full run takes minutes. No global setup: none of them needs Java, a
 * database or the network. Property tests run from the fixed seed, as in the default run.
 */
export default defineConfig({
  test: {
    include: [...MUTATION_TEST_FILES],
    setupFiles: ['test/support/fast-check-seed.ts'],
    testTimeout: 30_000,
  },
});
