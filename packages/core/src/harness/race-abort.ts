/**
 * Settles with `work`, or rejects with the signal's reason as soon as `signal` aborts, whichever comes first. NOTE:
 * this is how the harness keeps its deadline and per-request limit when the work ignores its abort signal (a provider
 * that never answers, an audit hook that hangs): the caller goes on at once, and whatever `work` does later is
 * ignored on purpose: its late result is dropped and its late rejection is caught here, never left unhandled. The
 * abort listener is removed when either side settles.
 */
export function raceAbort<T>(work: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  const settled = Promise.resolve(work);
  settled.catch(() => undefined);
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    settled.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
