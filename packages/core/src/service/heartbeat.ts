import type { RunStore } from '../store/run-store.ts';
import { HEARTBEAT_MS } from './abandonment.ts';

/**
 * A running invocation's sign of life: `heartbeat_at` written every `intervalMs` (besides every progress write) while
 * the run is in its hands, so the abandonment rule can tell a live run from one whose Lambda died. A failed write is
 * ignored (the next one may succeed; the run's deadline still bounds it). `stop` ends it.
 */
export function startHeartbeat(store: Pick<RunStore, 'heartbeat'>, runId: string, intervalMs = HEARTBEAT_MS) {
  let beating = false;
  const timer = setInterval(() => {
    if (beating) return;
    beating = true;
    store.heartbeat(runId).then(
      () => {
        beating = false;
      },
      () => {
        beating = false;
      },
    );
  }, intervalMs);
  return { stop: () => clearInterval(timer) };
}
