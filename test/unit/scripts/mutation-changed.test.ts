import { describe, expect, it } from 'vitest';
import { modulesToMutate } from '../../../scripts/mutation-changed.ts';
import { MUTATION_TARGETS } from '../../mutation/mutation-targets.ts';

describe('modulesToMutate', () => {
  it('selects nothing for a change outside the security-critical modules and their tests', () => {
    expect(modulesToMutate(new Set(['README.md', 'packages/core/src/agent/run-diagnosis.ts']))).toEqual([]);
  });

  it('selects a module whose source changed, and one whose test changed', () => {
    expect(
      modulesToMutate(
        new Set(['packages/core/src/harness/budget-policy.ts', 'test/unit/functions/triggers/webhook-auth.test.ts']),
      ),
    ).toEqual(['packages/core/src/harness/budget-policy.ts', 'functions/triggers/webhook-auth.ts']);
  });

  it('selects every module when the mutation setup itself changed', () => {
    expect(modulesToMutate(new Set(['stryker.config.mjs']))).toEqual(MUTATION_TARGETS.map((target) => target.module));
  });
});
