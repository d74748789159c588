import { describe, expect, it } from 'vitest';
import { moduleScores } from '../../../scripts/check-mutation-scores.ts';

const mutant = (status: string, line: number, mutatorName = 'ConditionalExpression', replacement = 'true') => ({
  status,
  mutatorName,
  replacement,
  location: { start: { line, column: 3 } },
});

describe('moduleScores', () => {
  it('scores killed and timed-out mutants over all valid ones, ignoring errors, per module', () => {
    const report = {
      files: {
        '/repo/packages/core/src/harness/budget-policy.ts': {
          source: 'a\nb\nc',
          mutants: [
            mutant('Killed', 1),
            mutant('Timeout', 1),
            mutant('Survived', 2),
            mutant('NoCoverage', 3),
            mutant('RuntimeError', 3),
          ],
        },
      },
    };
    expect(moduleScores(report, '/repo')).toEqual([
      {
        module: 'packages/core/src/harness/budget-policy.ts',
        score: 50,
        detected: 2,
        valid: 4,
        unexplained: [
          'packages/core/src/harness/budget-policy.ts:2:3 Survived ConditionalExpression → true',
          'packages/core/src/harness/budget-policy.ts:3:3 NoCoverage ConditionalExpression → true',
        ],
      },
    ]);
  });

  it('does not list a survivor that an equivalence note of its module explains', () => {
    const line = '    const checks = cited.filter((check) => check !== undefined);';
    const report = {
      files: {
        '/repo/packages/core/src/release/evidence-guard.ts': {
          source: line,
          mutants: [
            mutant('Survived', 1, 'MethodExpression', 'cited'),
            mutant('Survived', 1, 'ArrowFunction', '() => undefined'),
          ],
        },
      },
    };
    expect(moduleScores(report, '/repo')[0]?.unexplained).toEqual([
      'packages/core/src/release/evidence-guard.ts:1:3 Survived ArrowFunction → () => undefined',
    ]);
  });
});
