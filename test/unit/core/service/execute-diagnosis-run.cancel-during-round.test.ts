import { cancelled, emptyRunUsage, executeDiagnosisRun } from '@diagnosis/core';
import { createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';
import { envelope, KNOWLEDGE_INPUT, LOGS_INPUT, noConclusionDraft } from '../../../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../../../support/scripted-model.ts';

const request = {
  runId: 'run-cancel-during-round',
  sessionId: 's',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
  remainingMs: 60_000,
};

const logsRound = toolRound([{ id: 'call-logs', name: 'query_logs', input: envelope(LOGS_INPUT) }]);
const knowledgeRound = toolRound([
  { id: 'call-knowledge', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) },
]);

/**
 * The in-memory store, its cancel reads recorded in order: each read answers the flag as it is when the read is
 * served, which a test may hold (`holdReads`) as a table's latency would, until `serveReads`.
 */
function storeWithCancelReads() {
  const store = createMemoryStores();
  const read = store.isCancelRequested.bind(store);
  const reads: Promise<boolean>[] = [];
  let served: Promise<void> = Promise.resolve();
  let serve: () => void = () => undefined;
  store.isCancelRequested = (runId) => {
    const answer = served.then(() => read(runId));
    reads.push(answer);
    return answer;
  };
  return {
    store,
    reads,
    holdReads() {
      served = new Promise((resolve) => {
        serve = resolve;
      });
    },
    serveReads: () => serve(),
    requestCancel: () => store.requestCancel(request.runId, cancelled(emptyRunUsage()).outcome),
  };
}

/** Evidence whose tools count their calls: a round whose answer is not used runs none of them. */
function countedEvidence() {
  const calls: string[] = [];
  const evidence = createFakeEvidence({
    query_logs: async () => {
      calls.push('query_logs');
      return { status: 'EMPTY' };
    },
    lookup_knowledge: async () => {
      calls.push('lookup_knowledge');
      return { status: 'EMPTY' };
    },
  }).evidence;
  return { evidence, calls };
}

const settings = { flushReserveMs: 100, limits: { finalRoundReserveMs: 100 } };

describe('executeDiagnosisRun — the cancel read runs alongside each round’s model request', () => {
  it('sends a round’s model request while its cancel read is still unanswered (no read before the request)', async () => {
    const { store, reads, holdReads, serveReads } = storeWithCancelReads();
    let readSentAt = Number.NaN;
    const read = store.isCancelRequested;
    store.isCancelRequested = (runId) => {
      readSentAt = performance.now();
      return read(runId);
    };
    const { evidence } = countedEvidence();
    let readsAtRequest: number | undefined;
    let readWaitedMs: number | undefined;
    const model = scriptedModel([
      logsRound,
      () => {
        // NOTE: the round's read was sent with this request and is answered only after the model has been asked: a
        // round that waited on it would have sent this request only after the read's bounded wait (1 s) ran out.
        readsAtRequest = reads.length;
        readWaitedMs = performance.now() - readSentAt;
        serveReads();
        return textRound(JSON.stringify(noConclusionDraft()));
      },
    ]);
    const running = executeDiagnosisRun(request, {
      model,
      evidence,
      createStore: () => store,
      cancelPollMs: 3_600_000,
      ...settings,
    });
    holdReads();
    const result = await running;

    expect(readsAtRequest).toBe(1);
    expect(readWaitedMs).toBeLessThan(1_000);
    expect(reads).toHaveLength(1);
    expect(result.status).not.toBe('CANCELLED');
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it('uses no answer of a round whose cancel read finds the run cancelled: none of its tools, no round after it', async () => {
    const { store, holdReads, serveReads, requestCancel } = storeWithCancelReads();
    const { evidence, calls } = countedEvidence();
    const model = scriptedModel([
      logsRound,
      async () => {
        // The cancel arrives while the model is answering, before the round's read reaches the table.
        await requestCancel();
        serveReads();
        return knowledgeRound;
      },
      textRound(JSON.stringify(noConclusionDraft())),
    ]);
    const running = executeDiagnosisRun(request, {
      model,
      evidence,
      createStore: () => store,
      cancelPollMs: 3_600_000,
      ...settings,
    });
    holdReads();
    const result = await running;

    expect(result).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED', report: { kind: 'CANCELLED' } });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(calls).toEqual(['query_logs']);
    const stored = await store.getRun(request.runId);
    expect(stored).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED', usage: { modelCalls: 2 } });
    expect(stored?.progress).toMatchObject({ toolCalls: 1 });
  });

  it('aborts a long model request when a cancel arrives after its round’s read: the run ends CANCELLED, no round after it', async () => {
    const { store, reads, requestCancel } = storeWithCancelReads();
    const { evidence, calls } = countedEvidence();
    let providerSignal: AbortSignal | undefined;
    const model = scriptedModel([
      logsRound,
      async (call) => {
        providerSignal = call.abortSignal;
        // The round's own read has answered (not cancelled); the cancel comes while the model is still thinking.
        expect(await reads.at(-1)).toBe(false);
        await requestCancel();
        return new Promise((_resolve, reject) => {
          call.abortSignal?.addEventListener('abort', () => reject(new Error('request aborted')), { once: true });
        });
      },
      textRound(JSON.stringify(noConclusionDraft())),
    ]);
    const result = await executeDiagnosisRun(request, {
      model,
      evidence,
      createStore: () => store,
      cancelPollMs: 10,
      ...settings,
    });

    expect(providerSignal?.aborted).toBe(true);
    expect(result).toMatchObject({ status: 'CANCELLED', stopReason: 'CANCELLED' });
    expect(model.doGenerateCalls).toHaveLength(2);
    expect(calls).toEqual(['query_logs']);
    expect(await store.getRun(request.runId)).toMatchObject({ status: 'CANCELLED' });
  });
});
