/**
 * Settles with `work`, or as soon as `signal` aborts, whichever comes first: on abort it rejects with the signal's
 * reason, or, given `onAbort`, resolves with what `onAbort` returns (for a caller whose answer to an abort is a value,
 * like the tool boundary's TIMEOUT result). NOTE: this is how the harness keeps its deadline and per-request limit
 * when the work ignores its abort signal (a provider that never answers, an audit hook or an adapter that hangs): the
 * caller goes on at once, and whatever `work` does later is ignored on purpose: its late result is dropped and its
 * late rejection is caught here, never left unhandled. The abort listener is removed when either side settles.
 */
export function raceAbort<T, A = never>(work: PromiseLike<T>, signal: AbortSignal, onAbort?: () => A): Promise<T | A> {
  const settled = Promise.resolve(work);
  settled.catch(() => undefined);
  if (signal.aborted) return onAbort === undefined ? Promise.reject(signal.reason) : Promise.resolve(onAbort());
  return new Promise<T | A>((resolve, reject) => {
    const aborted = () => (onAbort === undefined ? reject(signal.reason) : resolve(onAbort()));
    signal.addEventListener('abort', aborted, { once: true });
    settled.then(resolve, reject).finally(() => signal.removeEventListener('abort', aborted));
  });
}
