/**
 * An abort controller that also aborts, with the parent's reason, when `parent` aborts (at once if it already has):
 * the signal `AbortSignal.any([parent, own])` would give, first reason wins, without a composite signal. NOTE: Node
 * makes every listener of a composite signal follow its sources through weak references, and the harness listens on
 * its signals in every round and tool call (`raceAbort`); this costs one listener on the parent. Call `unlink` when
 * the work the signal bounds has ended, so the parent does not keep the listener.
 */
export function createLinkedAbort(parent: AbortSignal) {
  const controller = new AbortController();
  const follow = () => controller.abort(parent.reason);
  if (parent.aborted) follow();
  else parent.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    /** Aborts with `reason` unless already aborted (by the parent or before). */
    abort: (reason?: unknown) => controller.abort(reason),
    unlink: () => parent.removeEventListener('abort', follow),
  };
}
