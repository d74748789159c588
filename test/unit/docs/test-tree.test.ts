import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const UNIT = join(ROOT, 'test/unit');
const E2E = join(ROOT, 'test/e2e');

/** Where each first folder of test/unit/ finds its sources. */
const SOURCES: Record<string, string> = {
  core: 'packages/core/src',
  cli: 'packages/cli/src',
  eval: 'packages/eval/src',
  devkit: 'packages/devkit/src',
  functions: 'functions',
  scripts: 'scripts',
  deploy: 'deploy',
  support: 'test/support', // the test run's own machinery: what a file leaves behind, the shared worker's check
};

/**
 * Unit tests that check no single source file, each with the reason: they keep a place of their own (their folder's).
 */
const OF_NO_SINGLE_FILE = new Set([
  'core/architecture.test.ts', // the layer rule over all of core/src
  'functions/architecture.test.ts', // the capability rule over all of functions/
  'core/store/item-wire-format.test.ts', // the stored bytes of every item kind at once
  'core/store/items/item-schemas.test.ts', // every item kind's schema
  'core/service/run-after-claim.test.ts', // the service's rule across take-run and the pipeline
  'core/tools/masking/detectors.test.ts', // the masking detectors as a set
  'cli/json-schemas.test.ts', // docs/schemas against the code's own lists
  'deploy/sst-config.test.ts', // sst.config.ts (at the root)
  'deploy/sst-config.triggers.test.ts',
  'deploy/sst-config.slack.test.ts',
  'deploy/sst-config.routes.test.ts',
  'deploy/sst-config.changes.test.ts',
  'deploy/delivery-config.test.ts', // the stage file's delivery section (deploy/stage-config.ts, deploy/delivery.ts)
  'eval/corpus.test.ts', // the corpus in eval/scenarios
  'eval/corpus-format.test.ts',
  'docs/documentation.test.ts', // README, docs/, BENCHMARKS.md
  'docs/benchmarks.test.ts', // BENCHMARKS.md as a reference
  'docs/project-words.test.ts', // every tracked text file
  'docs/long-files.test.ts', // every TypeScript file over 300 lines
  'docs/service-pages.test.ts', // README, architecture and development against the deployment and the tree
  'docs/test-tree.test.ts', // this rule
]);

/**
 * The capabilities test/e2e/ is kept by, one folder each: the capability folders of `functions/` (the API, Diagnose
 * with its workflows, triggers, changes, delivery, Slack, ratings with memory), `local` (the `diagnosis` bin and
 * `serve`), `eval` (the scenario runner, capture and replay) and `lambda` (what every function shares: cold start,
 * logs and metrics). A test of a new capability gets a new folder here, named as its folder in `functions/`.
 */
const E2E_CAPABILITIES = new Set([
  'api',
  'diagnose',
  'triggers',
  'changes',
  'delivery',
  'slack',
  'ratings',
  'local',
  'eval',
  'lambda',
]);

function testFiles(folder: string, root = UNIT): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === '__snapshots__' ? [] : testFiles(path, root);
    return entry.name.endsWith('.test.ts') ? [relative(root, path).split('\\').join('/')] : [];
  });
}

/** The source a unit test mirrors: test/unit/<package>/<folder>/<name>[.<aspect>].test.ts → <src>/<folder>/<name>.ts */
function sourceOf(test: string): string | null {
  const [first, ...rest] = test.split('/');
  const base = SOURCES[first ?? ''];
  if (base === undefined || rest.length === 0) return null;
  const name = (rest.pop() ?? '').replace(/\.test\.ts$/, '').split('.')[0];
  const source = join(ROOT, base, ...rest, `${name}.ts`);
  return existsSync(source) ? source : null;
}

describe('the unit test tree', () => {
  it('mirrors the source tree: each unit test sits where its source file is, in its package', () => {
    const strays = testFiles(UNIT).filter((test) => !OF_NO_SINGLE_FILE.has(test) && sourceOf(test) === null);
    expect(strays).toEqual([]);
  });

  it('knows no exception that is not there', () => {
    const files = new Set(testFiles(UNIT));
    expect([...OF_NO_SINGLE_FILE].filter((test) => !files.has(test))).toEqual([]);
  });
});

describe('the e2e test tree', () => {
  it('keeps each e2e test, property tests included, in the folder of its capability: test/e2e/<capability>/', () => {
    const strays = testFiles(E2E, E2E).filter((test) => {
      const [capability, name, ...deeper] = test.split('/');
      return !E2E_CAPABILITIES.has(capability ?? '') || name === undefined || deeper.length > 0;
    });
    expect(strays).toEqual([]);
  });

  it('holds no file but tests and their snapshots, so no helper hides among them (helpers live in test/support/)', () => {
    const others = readdirSync(E2E, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
      .filter((entry) => !entry.parentPath.split('/').includes('__snapshots__'))
      .map((entry) => relative(E2E, join(entry.parentPath, entry.name)));
    expect(others).toEqual([]);
  });
});
