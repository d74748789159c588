import { describe, expect, it } from 'vitest';
import { describeMemoryChange } from '../../../../packages/cli/src/commands/feedback.ts';

describe('describeMemoryChange', () => {
  it('says a CORRECT run was remembered as a past incident, a lead for the enterprise’s later runs', () => {
    expect(describeMemoryChange('REMEMBERED', 'CORRECT', 'E1001')).toBe(
      'remembered as a past incident of E1001: its later runs meet it as a lead to check, never as evidence (diagnosis memory list --enterprise E1001)',
    );
  });

  it('says a WRONG rating retracted the run’s past incident', () => {
    expect(describeMemoryChange('RETRACTED', 'WRONG', 'E1001')).toBe(
      "the run's past incident is retracted for good: E1001's later runs no longer meet it",
    );
  });

  it('says why a CORRECT rating remembered nothing: retracted before, or nothing published', () => {
    expect(describeMemoryChange('ALREADY_RETRACTED', 'PARTIALLY_CORRECT', 'E1001')).toBe(
      'not remembered: a WRONG or UNHELPFUL rating (or a forget) retracted this run for good',
    );
    expect(describeMemoryChange('NOT_ELIGIBLE', 'CORRECT', 'E1001')).toBe(
      'not remembered: only a published diagnosis with a conclusion becomes a past incident',
    );
  });

  it('says an UNHELPFUL rating of a run never remembered keeps it from being remembered', () => {
    expect(describeMemoryChange('ALREADY_RETRACTED', 'UNHELPFUL', 'E1001')).toBe(
      'not remembered, and no later rating will remember it',
    );
  });
});
