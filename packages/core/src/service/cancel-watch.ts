import type { RunStore } from '../store/run-store.ts';

/** How often a running invocation reads its run's cancel flag (one small consistent read). */
export const CANCEL_POLL_MS = 2_000;

/** The longest a round waits for its read (a table that does not answer must not hold every round). */
const CHECK_NOW_WAIT_MS = 1_000;

/**
 * Watches a run's cancel flag while it runs, at most one read every `intervalMs`, and aborts the returned signal when
 * someone asked to cancel (the cancel route, a workflow stopped from the console, Ctrl-C in the local runner). A failed
 * read is ignored (the next one may succeed; the run's own deadline still holds). `stop` ends the watch. `justClaimed`:
 * the run was claimed by a condition on the same flag just now, so the first `checkNow` need not read it again.
 * `checkWaitMs`: the longest `checkNow` waits for its read; a later answer still cancels the run.
 */
export function watchCancellation(
  store: Pick<RunStore, 'isCancelRequested'>,
  runId: string,
  intervalMs = CANCEL_POLL_MS,
  options: { justClaimed?: boolean; checkWaitMs?: number } = {},
) {
  const controller = new AbortController();
  // NOTE: the claim that took the run refused it if a cancel had been asked for (its condition reads the same flag),
  // so the first round's check would read what the claim has just read: it is skipped (one request fewer per run);
  // every later round reads it, and the periodic read runs from the start.
  let skipNext = options.justClaimed === true;
  let reading = false;
  const timer = setInterval(() => {
    if (reading || controller.signal.aborted) return;
    reading = true;
    store.isCancelRequested(runId).then(
      (requested) => {
        reading = false;
        if (requested) controller.abort(new Error('cancel requested'));
      },
      () => {
        reading = false;
      },
    );
  }, intervalMs);
  return {
    signal: controller.signal,
    /**
     * One read now, started with a model round's request and awaited before its answer is used: a cancel it finds
     * aborts the request, so a cancelled run uses no answer of a new round and starts none after it.
     */
    async checkNow() {
      if (controller.signal.aborted) return;
      if (skipNext) {
        skipNext = false;
        return;
      }
      // NOTE: a failed read changes nothing; the periodic read and the run's deadline still hold. A read the table
      // does not answer within `checkWaitMs` is not waited for (a stalled table would hold each round for the
      // client's timeouts and retries); its answer, if it comes, still cancels the run.
      const read = store.isCancelRequested(runId).then(
        (requested) => {
          if (requested) controller.abort(new Error('cancel requested'));
        },
        () => undefined,
      );
      let waited: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        read,
        new Promise<void>((resolve) => {
          waited = setTimeout(resolve, options.checkWaitMs ?? CHECK_NOW_WAIT_MS);
        }),
      ]);
      clearTimeout(waited);
    },
    stop: () => clearInterval(timer),
  };
}
