import { describe, expect, it } from 'vitest';
import {
  type AnyEvidenceAdapter,
  runEvidenceAdapter,
} from '../../../../packages/core/src/harness/run-evidence-adapter.ts';
import type { ToolCallRequest } from '../../../../packages/core/src/tools/evidence-adapter.ts';

const request = (signal: AbortSignal): ToolCallRequest<unknown> => ({
  runId: 'run-1',
  sessionId: 'session-1',
  enterpriseId: 'E1001',
  toolCallId: 'call-1',
  toolName: 'lookup_knowledge',
  input: { query: '连接池' },
  signal,
});

/** A promise that resolves once the adapter has started, so the test aborts while it is running. */
function startSignal() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const adapter = (execute: AnyEvidenceAdapter['execute']): AnyEvidenceAdapter => ({ execute });

describe('runEvidenceAdapter', () => {
  it('answers with the adapter’s result when it settles first', async () => {
    const signal = new AbortController().signal;
    const result = await runEvidenceAdapter(
      adapter(async () => ({ status: 'EMPTY' })),
      request(signal),
      signal,
    );
    expect(result).toEqual({ status: 'EMPTY' });
  });

  it('answers TIMEOUT when the signal aborts while the adapter hangs', async () => {
    const controller = new AbortController();
    const started = startSignal();
    const hanging = adapter(() => {
      started.resolve();
      return new Promise(() => undefined);
    });
    const result = runEvidenceAdapter(hanging, request(controller.signal), controller.signal);
    await started.promise;
    controller.abort(new Error('collection over'));
    await expect(result).resolves.toEqual({ status: 'ERROR', code: 'TIMEOUT', detail: 'aborted by the harness' });
  });

  it('answers TIMEOUT, not INTERNAL, when an adapter that honours the signal rejects on the abort', async () => {
    const controller = new AbortController();
    const started = startSignal();
    const honouring = adapter(
      (call) =>
        new Promise((_, reject) => {
          call.signal.addEventListener('abort', () => reject(call.signal.reason), { once: true });
          started.resolve();
        }),
    );
    const result = runEvidenceAdapter(honouring, request(controller.signal), controller.signal);
    await started.promise;
    controller.abort(new Error('collection over'));
    await expect(result).resolves.toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });
  });

  it('answers INTERNAL with the error’s name only when the adapter throws, synchronously or not', async () => {
    const signal = new AbortController().signal;
    const throwing = adapter(() => {
      throw new TypeError('secret connection string');
    });
    await expect(runEvidenceAdapter(throwing, request(signal), signal)).resolves.toEqual({
      status: 'ERROR',
      code: 'INTERNAL',
      detail: 'adapter threw TypeError',
    });
    const rejecting = adapter(async () => Promise.reject(new RangeError('raw driver text')));
    await expect(runEvidenceAdapter(rejecting, request(signal), signal)).resolves.toMatchObject({
      code: 'INTERNAL',
      detail: 'adapter threw RangeError',
    });
  });

  it('does not start the adapter once collection is over', async () => {
    const signal = AbortSignal.abort(new Error('over'));
    let started = false;
    const result = await runEvidenceAdapter(
      adapter(async () => {
        started = true;
        return { status: 'EMPTY' };
      }),
      request(signal),
      signal,
    );
    expect(result).toEqual({ status: 'ERROR', code: 'TIMEOUT', detail: 'collection window closed' });
    expect(started).toBe(false);
  });
});
