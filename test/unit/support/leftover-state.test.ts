import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { captureProcessState, handlesClosed, leftoverState, trackTimers } from '../../support/leftover-state.ts';

const KEY = 'LEFTOVER_STATE_TEST';

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('leftoverState', () => {
  it('finds nothing when the process is as it was', () => {
    const before = captureProcessState();
    expect(leftoverState(before)).toEqual([]);
  });

  it('names an environment key set, a global added, an exit code, a console method and a listener left', () => {
    const before = captureProcessState();
    const log = console.log;
    const listener = () => undefined;
    process.env[KEY] = '1';
    (globalThis as Record<string, unknown>)[KEY] = 1;
    process.exitCode = 3;
    console.log = () => undefined;
    process.on('SIGTERM', listener);
    try {
      expect(leftoverState(before)).toEqual([
        `process environment keys changed: ${KEY}`,
        'process.exitCode set to 3',
        `globals added: ${KEY}`,
        'console methods replaced: log',
        'process listeners changed: SIGTERM',
      ]);
    } finally {
      delete process.env[KEY];
      delete (globalThis as Record<string, unknown>)[KEY];
      process.exitCode = before.exitCode;
      console.log = log;
      process.off('SIGTERM', listener);
    }
    expect(leftoverState(before)).toEqual([]);
  });

  it('names fake timers still installed and a spy left on a built-in', () => {
    const before = captureProcessState();
    vi.useFakeTimers();
    vi.spyOn(String.prototype, 'trim');
    expect(leftoverState(before)).toEqual(['fake timers still installed', 'a mock left on String.prototype.trim']);
    vi.useRealTimers();
    vi.restoreAllMocks();
    expect(leftoverState(before)).toEqual([]);
  });

  it('names a timer left running with where it was set, and forgets it once cleared or unreferenced', () => {
    trackTimers();
    const before = captureProcessState();
    const timer = setTimeout(() => undefined, 60_000);
    const interval = setInterval(() => undefined, 60_000);
    const found = leftoverState(before);
    expect(found).toHaveLength(2);
    for (const line of found) expect(line).toMatch(/^a timer left running, set at .*leftover-state\.test\.ts:\d+:\d+/);
    clearTimeout(timer);
    interval.unref();
    expect(leftoverState(before)).toEqual([]);
    clearInterval(interval);
  });

  it('names a server left listening, unless handles are left out', async () => {
    const before = captureProcessState();
    const server = createServer();
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    try {
      expect(leftoverState(before)).toEqual(['1 TCPServerWrap left keeping the process alive']);
      expect(leftoverState(before, { handles: false })).toEqual([]);
    } finally {
      await new Promise((closed) => server.close(closed));
    }
    await handlesClosed();
    expect(leftoverState(before)).toEqual([]);
  });

  it('leaves out the globals a library sets on itself when first loaded', () => {
    const before = captureProcessState();
    new Response('made lazily by Node');
    (globalThis as Record<string, unknown>).__zod_globalConfig ??= {};
    expect(leftoverState(before)).toEqual([]);
  });
});
