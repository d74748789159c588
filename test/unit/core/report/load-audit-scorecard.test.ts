import {
  cancelled,
  emptyRunUsage,
  loadAuditScorecard,
  MAX_SCORED_RECORDS,
  neverRanScorecard,
  type RunStore,
} from '@diagnosis/core';
import type { RunRecord, StoredToolInvocation } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { envelope, LOGS_INPUT } from '../../../support/run-fixtures.ts';
import { storedRun } from '../../../support/stored-run.ts';

const outcome = cancelled(emptyRunUsage()).outcome;

function tool(toolCallId: string): StoredToolInvocation {
  return {
    entity: 'tool_invocation',
    runId: 'run-1',
    toolCallId,
    toolName: 'query_logs',
    stepNumber: 1,
    disposition: 'EXECUTED',
    status: 'READY',
    empty: false,
    code: null,
    input: envelope(LOGS_INPUT),
    inputTruncated: false,
    observation: null,
    result: null,
    resultTruncated: false,
    errorDetail: null,
    startedAt: '2026-11-30T06:10:01.000Z',
    endedAt: '2026-11-30T06:10:02.000Z',
  };
}

/** A store whose run partition is `pages`, one page per call, counting the calls. */
function pagedStore(pages: RunRecord[][], endless = false) {
  const calls: { limit?: number; cursor?: string }[] = [];
  const store: Pick<RunStore, 'listRunRecords'> = {
    async listRunRecords(_runId, page = {}) {
      calls.push(page);
      const index = calls.length - 1;
      const records = pages[index % pages.length] ?? [];
      const last = endless || index < pages.length - 1;
      return { records, cursor: last ? `cursor-${index + 1}` : null };
    },
  };
  return { store, calls };
}

describe('loadAuditScorecard', () => {
  it('scores every page of the run partition and skips the run item', async () => {
    const { store, calls } = pagedStore([[storedRun({ runId: 'run-1', status: 'RUNNING' }), tool('a')], [tool('b')]]);

    const card = await loadAuditScorecard(store, 'run-1', outcome);

    expect(calls).toEqual([{ limit: 100 }, { limit: 100, cursor: 'cursor-1' }]);
    expect(card?.toolCalls).toMatchObject({ total: 2, executed: 2, redundant: 1 });
  });

  it('stores no card rather than a partial one when the partition holds more than the bound', async () => {
    const page = Array.from({ length: 100 }, (_, index) => tool(`call-${index}`));
    const { store, calls } = pagedStore([page], true);

    expect(await loadAuditScorecard(store, 'run-1', outcome)).toBeNull();
    expect(calls).toHaveLength(MAX_SCORED_RECORDS / 100);
  });
});

describe('neverRanScorecard', () => {
  it('is the card of an empty audit', () => {
    expect(neverRanScorecard(outcome)).toMatchObject({
      rounds: 0,
      toolCalls: { total: 0 },
      answeredWithoutTools: false,
      timeMs: { span: 0, leftAtEnd: null },
    });
  });
});
