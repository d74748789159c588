/**
 * The unit project's setup file. Its files share a worker process and one module graph (`isolate: false` in
 * vitest.config.ts): a module is imported once per run, not once per file, which is most of what a unit file cost.
 * NOTE: what a file could leave for the next one is checked after its last hook (test/support/leftover-state.ts): a
 * file that leaves the environment, a global, the console, a listener, fake timers, a spy on a built-in or a live
 * timer or socket behind fails, naming it.
 */
import { afterAll, expect } from 'vitest';
import { captureProcessState, handlesClosed, leftoverState, trackTimers } from './leftover-state.ts';

trackTimers();
// NOTE: before the file is imported, so what its describe bodies do is seen too.
const before = captureProcessState();

afterAll(async () => {
  await handlesClosed();
  expect(leftoverState(before), 'what this file left for the next file of its worker').toEqual([]);
});
