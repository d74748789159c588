/**
 * The e2e project's setup file. Its files share a worker process (`isolate: false` in vitest.config.ts): each file
 * still gets the project's own modules afresh — reset here, before the file imports anything, so every handler
 * cold-starts again with the environment its file sets — while node_modules (the AWS SDK, the AI SDK, mysql2) stay
 * loaded, which is what the sharing saves. NOTE: what a file could leave behind for the next one is checked after its
 * last hook: the process environment, the console and the process's signal and error listeners must be as the file
 * found them, else that file fails, naming what it left.
 */
import { afterAll, expect, vi } from 'vitest';

vi.resetModules();

const EVENTS = ['exit', 'SIGINT', 'SIGTERM', 'uncaughtException', 'unhandledRejection'] as const;
const environment = { ...process.env };
const consoleMethods = { log: console.log, info: console.info, warn: console.warn, error: console.error };
const listeners = EVENTS.map((event) => process.listenerCount(event));

afterAll(() => {
  const keys = new Set([...Object.keys(environment), ...Object.keys(process.env)]);
  const changed = [...keys].filter((key) => process.env[key] !== environment[key]).sort();
  expect(changed, 'process environment keys this file left changed').toEqual([]);
  const replaced = Object.entries(consoleMethods)
    .filter(([level, method]) => console[level as keyof typeof consoleMethods] !== method)
    .map(([level]) => level);
  expect(replaced, 'console methods this file left replaced').toEqual([]);
  const added = EVENTS.filter((event, index) => process.listenerCount(event) !== listeners[index]);
  expect(added, 'process listeners this file left').toEqual([]);
});
