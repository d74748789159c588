import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// NOTE: Node's module compile cache for every test worker and every process they start with this environment: what
// Node itself loads (the dependencies, the built functions, the bin's TypeScript) is compiled once per content, then
// read from disk. It changes no behaviour (Node checks each entry against its source); the instruction counts of
// bench/lambda-bundle.ts never see it (their processes get an environment of their own).
process.env.NODE_COMPILE_CACHE ||= resolve(import.meta.dirname, 'node_modules/.cache/node-compile-cache');

const timeouts = { testTimeout: 30_000, hookTimeout: 60_000 };
// Property tests run from a fixed seed unless FC_SEED says otherwise (test/support/fast-check-seed.ts).
const propertySeedSetup = 'test/support/fast-check-seed.ts';
// A test that prints a function's EMF record or ERROR log line without capturing it fails (test/support/stray-records.ts).
const strayRecordsGuard = 'test/support/stray-records-guard.ts';

/**
 * The unit test files (or a pattern of them) that keep a worker process and module graph of their own (vitest's
 * default isolation), each with the reason. Every other unit file shares one (the `unit` project), and fails if it leaves process state
 * behind (test/support/shared-worker.ts): a file goes here only when what it changes cannot be undone.
 */
export const ISOLATED_UNIT_TESTS: Record<string, string> = {
  'test/unit/core/agent/run-diagnosis.telemetry.test.ts':
    'registers an AI SDK telemetry integration: process-wide, and the SDK has no way to remove one',
  'test/unit/core/release/semantic-guard.telemetry.test.ts':
    'registers an AI SDK telemetry integration: process-wide, and the SDK has no way to remove one',
  'test/unit/deploy/sst-config*.test.ts':
    "evaluate sst.config.ts under a stand-in of SST's globals, which SST's modules read as they are evaluated",
};

/**
 * The projects, run together by `npm test`: `unit` and `unit-isolated` (no Java, no database, no network: `npm run
 * test:unit`), `integration` (DynamoDB Local, MariaDB, real HTTP on 127.0.0.1) and `e2e` (the real handlers with Lambda events,
 * the `diagnosis` bin's commands in process, and in child processes where the process is what is tested). The root's
 * global setup runs once and starts one DynamoDB Local, only when an integration or e2e project is selected.
 */
export default defineConfig({
  test: {
    globalSetup: ['test/support/dynamodb-global-setup.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: Object.keys(ISOLATED_UNIT_TESTS),
          // NOTE: one module graph for every unit file (isolate: false): a module is imported once per worker, not
          // once per file. The setup file fails a file that leaves process state behind for the next one.
          isolate: false,
          // NOTE: two workers on 2 cores (vitest's default is one: availableParallelism − 1): unit files are pure and
          // CPU-bound, so each core runs one; `npm run test:unit` 71.7 → 47.8 s, quiet. A project's worker count is
          // its group's: this one and unit-isolated are a group of their own, run first (groupOrder 0).
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          setupFiles: [propertySeedSetup, strayRecordsGuard, 'test/support/shared-worker.ts'],
          ...timeouts,
        },
      },
      {
        test: {
          name: 'unit-isolated',
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
          include: Object.keys(ISOLATED_UNIT_TESTS),
          setupFiles: [propertySeedSetup, strayRecordsGuard],
          ...timeouts,
        },
      },
      {
        test: {
          name: 'integration',
          // NOTE: three files at once on 2 cores (its own group, groupOrder 1: after the unit files, before e2e): an
          // integration file waits most of its time on DynamoDB Local, MariaDB, loopback servers and the timeouts and
          // backoffs it tests, so three fill the two cores. Each file has its own tables, databases and ports on the
          // one DynamoDB Local and MariaDB, so nothing orders them. One file at a time the project took 140 s of a
          // quiet `npm test`; three at once 65 s at load 8.5. Each file keeps a process of its own (default isolation).
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          include: ['test/integration/**/*.test.ts'],
          setupFiles: [propertySeedSetup, strayRecordsGuard],
          ...timeouts,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          ...timeouts,
          // NOTE: two files at once on 2 cores (vitest's default is one: availableParallelism − 1). An e2e file waits
          // most of its time on DynamoDB Local, MariaDB, the loopback provider and the bin's child processes, so a
          // second file fills that idle time. Not three: some files time what a run waits on (round-trips-per-round)
          // and failed beside two others when the machine was loaded. Its own group (groupOrder 2), run last.
          maxWorkers: 2,
          sequence: { groupOrder: 2 },
          // NOTE: a worker process runs file after file (isolate: false) instead of a new process per file: the
          // setup file resets the project's own modules before each file (every handler cold-starts again) and fails
          // a file that leaves its environment, console or process listeners changed; node_modules stay loaded.
          // Against the built functions (E2E_BUILT_FUNCTIONS) each file gets its own process again: Node loads those
          // bundles itself and keeps them, so a second file would get the first one's handlers, set up for its world.
          isolate: (process.env.E2E_BUILT_FUNCTIONS ?? '') !== '',
          setupFiles: [propertySeedSetup, strayRecordsGuard, 'test/support/file-isolation.ts'],
          // The built functions (E2E_BUILT_FUNCTIONS=.data/build/functions) load as Node loads them on Lambda, untransformed.
          server: { deps: { external: [/\/node_modules\//, /\/\.data\/build\/functions\//] } },
        },
      },
    ],
  },
});
