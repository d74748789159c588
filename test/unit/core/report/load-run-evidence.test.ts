import { loadRunEvidence, type RunStore } from '@diagnosis/core';
import type { RunRecord } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { storedRun } from '../../../support/stored-run.ts';

/** A store holding one run and no records, counting its reads of the run item and of the partition. */
function countingStore(run: ReturnType<typeof storedRun>) {
  const reads = { getRun: 0, listRunRecords: 0 };
  const store: Pick<RunStore, 'getRun' | 'listRunRecords'> = {
    async getRun(runId) {
      reads.getRun += 1;
      return runId === run.runId ? run : null;
    },
    async listRunRecords() {
      reads.listRunRecords += 1;
      return { records: [] as RunRecord[], cursor: null };
    },
  };
  return { store, reads };
}

describe('loadRunEvidence', () => {
  it('reads the run item and its records when given a run id', async () => {
    const run = storedRun({ runId: 'run-1', status: 'SUCCEEDED' });
    const { store, reads } = countingStore(run);

    const loaded = await loadRunEvidence(store, run.runId);

    expect(loaded?.run).toBe(run);
    expect(reads).toEqual({ getRun: 1, listRunRecords: 1 });
  });

  it('answers null when there is no such run', async () => {
    const { store } = countingStore(storedRun({ runId: 'run-1', status: 'SUCCEEDED' }));

    expect(await loadRunEvidence(store, 'no-such-run')).toBeNull();
  });

  it('reads no run item when given the run its caller has already read', async () => {
    const run = storedRun({ runId: 'run-1', status: 'SUCCEEDED' });
    const { store, reads } = countingStore(run);

    const loaded = await loadRunEvidence(store, run);

    expect(loaded?.run).toBe(run);
    expect(loaded?.evidence).toEqual((await loadRunEvidence(countingStore(run).store, run.runId))?.evidence);
    expect(reads).toEqual({ getRun: 0, listRunRecords: 1 });
  });
});
