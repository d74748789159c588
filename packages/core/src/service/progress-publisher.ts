import type { ProgressSnapshot } from '../run/progress.ts';
import type { RunContext, RunUsage } from '../run/run-context.ts';
import type { RunStore } from '../store/run-store.ts';

/** The least time between two progress writes of one run. */
const PROGRESS_WRITE_MS = 1_000;

/**
 * Writes a running run's progress for readers: at most one write in flight and one every `minIntervalMs`, always the
 * newest snapshot (older ones are dropped, never queued), never failing the run. `drain` waits for the last write.
 * NOTE: after `drain` nothing is written: a tool call that ends after its run (its round was abandoned) still reports
 * progress, which would otherwise set a timer and write a running run's progress onto a completed one.
 */
export function createProgressPublisher(
  store: Pick<RunStore, 'updateProgress'>,
  run: RunContext,
  minIntervalMs = PROGRESS_WRITE_MS,
) {
  let latest: { progress: ProgressSnapshot; usage: RunUsage } | undefined;
  let writing: Promise<void> | undefined;
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let drained = false;

  const write = () => {
    timer = undefined;
    if (latest === undefined || writing !== undefined) return;
    const { progress, usage } = latest;
    latest = undefined;
    lastWriteAt = Date.now();
    writing = store
      .updateProgress(run.runId, { usage, progress, deadlineAt: run.deadlineAt })
      .catch(() => undefined)
      .finally(() => {
        writing = undefined;
        if (latest !== undefined) schedule();
      });
  };
  const schedule = () => {
    if (timer !== undefined || writing !== undefined) return;
    timer = setTimeout(write, Math.max(0, lastWriteAt + minIntervalMs - Date.now()));
  };

  return {
    /** The usage is read now, with the snapshot, so readers never see the two disagree. */
    publish(progress: ProgressSnapshot) {
      if (drained) return;
      latest = { progress, usage: run.usage() };
      schedule();
    },
    /** Stops publishing and waits for a write in flight (the run's completion comes next). */
    async drain() {
      drained = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      latest = undefined;
      await writing;
    },
  };
}
