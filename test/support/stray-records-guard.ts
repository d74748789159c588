/**
 * A setup file of every vitest project: a test (or a file's hooks) that prints a function's EMF record or an ERROR
 * log line it did not capture fails, naming the line (test/support/stray-records.ts). NOTE: installed once per worker
 * process, before test/support/file-isolation.ts records the console it must find again; the lines seen are kept
 * on `globalThis` because a shared e2e worker evaluates this file again for each test file.
 */
import { afterAll, afterEach, expect } from 'vitest';
import { guardAgainstStrayRecords } from './stray-records.ts';

const SEEN = Symbol.for('diagnosis.test.stray-records');
const shared = globalThis as { [SEEN]?: string[] };
shared[SEEN] ??= [];
const seen = shared[SEEN];
guardAgainstStrayRecords({ console, streams: [process.stdout, process.stderr] }, seen);

const MESSAGE =
  'EMF records and ERROR log lines printed to the test run: capture them (an injected LogDestination, or the e2e ' +
  "world's logs) and assert on them in the test that causes them";

afterEach(() => {
  expect(seen.splice(0), MESSAGE).toEqual([]);
});
afterAll(() => {
  expect(seen.splice(0), MESSAGE).toEqual([]);
});
