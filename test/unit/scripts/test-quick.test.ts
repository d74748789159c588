import { describe, expect, it } from 'vitest';
import { unitTargetsOf } from '../../../scripts/test-quick.ts';

describe('unitTargetsOf', () => {
  it('runs the unit tests of each changed package, the functions and the deploy code', () => {
    expect(
      unitTargetsOf([
        'packages/core/src/release/evidence-guard.ts',
        'packages/cli/src/main.ts',
        'functions/slack/card-items.ts',
        'deploy/ingress.ts',
        'sst.config.ts',
      ]),
    ).toEqual(['test/unit/cli', 'test/unit/core', 'test/unit/deploy', 'test/unit/functions']);
  });

  it('runs a changed unit test file itself, and the docs tests for a changed page', () => {
    expect(unitTargetsOf(['test/unit/core/errors.test.ts', 'docs/cli.md', 'README.md'])).toEqual([
      'test/unit/core/errors.test.ts',
      'test/unit/docs',
    ]);
  });

  it('runs nothing for what only the integration and e2e tests, the eval or the benches cover', () => {
    expect(
      unitTargetsOf(['test/e2e/api/start.test.ts', 'eval/scenarios/x.yaml', 'examples/a.json', 'bench/run-growth.ts']),
    ).toEqual([]);
  });

  it('runs every unit test when the root config or the unit tests’ support changed', () => {
    expect(unitTargetsOf(['vitest.config.ts'])).toBeUndefined();
    expect(unitTargetsOf(['package.json', 'packages/core/src/index.ts'])).toBeUndefined();
    expect(unitTargetsOf(['test/unit/support/x.ts'])).toBeUndefined();
  });
});
