// NOTE: over 300 lines on purpose: one port's contract suite (RunStore), run as a whole against DynamoDB Local and the
// in-memory twin so the twin cannot drift; a port's suite stays one file.
import { buildPreviousTurn, DEFAULT_RUN_LIMITS } from '@diagnosis/core';
import { type Item, type RunRecord, type RunStore, RunStoreError, type StoredReasoning } from '@diagnosis/core/store';
import { afterEach, describe, expect, it } from 'vitest';
import { failedOutcome, fallbackOutcome, publishedOutcome, STORE_T0 } from '../support/audit-events.ts';
import { supportedDraft } from '../support/run-fixtures.ts';

export interface StoreUnderTest {
  store: RunStore;
  /** Every raw item the store holds for a run (its run, reasoning and pseudonym partitions), as persisted. */
  rawItems(runId: string): Promise<Item[]>;
  cleanup(): Promise<void>;
}

export type StoreFactory = (options: {
  now: () => number;
  sessionPageSize?: number;
  maxOpenRuns?: number;
}) => Promise<StoreUnderTest>;

let counter = 0;
export const newRunId = () => `run-${Date.now().toString(36)}-${(counter++).toString(36)}`;
/** Starts a RUNNING run of the contract's default request. */
export const start = (store: RunStore, runId: string, sessionId = 'session-1', enterpriseId = 'E1001') =>
  store.startRun({
    runId,
    sessionId,
    enterpriseId,
    query: 'E1001 的订单从 14:05 开始失败，为什么？',
    continueSession: false,
  });

/** Every page of a run's records, then (when asked) every page of its reasoning. */
export async function allRecords(store: RunStore, runId: string, includeReasoning: boolean, limit?: number) {
  const records: (RunRecord | StoredReasoning)[] = [];
  let pages = 0;
  const lists = includeReasoning
    ? [store.listRunRecords.bind(store), store.listReasoning.bind(store)]
    : [store.listRunRecords.bind(store)];
  for (const list of lists) {
    let cursor: string | undefined;
    for (;;) {
      const page = await list(runId, {
        ...(cursor === undefined ? {} : { cursor }),
        ...(limit === undefined ? {} : { limit }),
      });
      records.push(...page.records);
      pages += 1;
      if (page.cursor === null) break;
      cursor = page.cursor;
    }
  }
  return { records, pages };
}

/**
 * One behaviour for every RunStore: the DynamoDB one and the in-memory fake run the same suite. The audit trail it
 * reads back is the AuditWriter's, whose own suite is `audit-writer-contract.ts`.
 */
export function describeRunStoreContract(label: string, factory: StoreFactory): void {
  describe(`RunStore contract: ${label}`, () => {
    let clock = STORE_T0;
    const now = () => clock;
    let current: StoreUnderTest | undefined;
    const make = async (options: { sessionPageSize?: number; maxOpenRuns?: number } = {}) => {
      current = await factory({ now, ...options });
      return current;
    };
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
      clock = STORE_T0;
    });

    it('starts a run as RUNNING with its session index keys', async () => {
      const { store } = await make();
      const runId = newRunId();
      const result = await start(store, runId);
      expect(result.started).toBe(true);
      expect(await store.getRun(runId)).toMatchObject({
        runId,
        sessionId: 'session-1',
        enterpriseId: 'E1001',
        kind: 'DIAGNOSIS',
        status: 'RUNNING',
        createdAt: new Date(STORE_T0).toISOString(),
        endedAt: null,
      });
    });

    it('reports the stored run instead of starting twice when the runId is replayed', async () => {
      const { store } = await make();
      const runId = newRunId();
      await start(store, runId);
      const again = await start(store, runId);
      expect(again).toMatchObject({ started: false, run: { status: 'RUNNING' } });
      await store.completeRun(runId, publishedOutcome());
      const replay = await start(store, runId);
      expect(replay.started).toBe(false);
      expect(replay.run).toMatchObject({ status: 'SUCCEEDED', report: publishedOutcome().report });
    });

    it('keeps a queued run’s trigger and incident window, and reads runs without them as null', async () => {
      const { store } = await make();
      const runId = newRunId();
      const trigger = {
        source: 'cloudwatch' as const,
        incidentKey: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:x@2026-11-30T06:05:00.000Z',
        eventId: 'event-1',
        title: 'x',
        startedAt: '2026-11-30T06:05:00.000Z',
      };
      const window = { from: '2026-11-30T05:35:00.000Z', to: '2026-11-30T06:06:00.000Z' };
      await store.queueRun({
        runId,
        sessionId: 'session-1',
        enterpriseId: 'E1001',
        query: 'q',
        continueSession: false,
        trigger,
        window,
      });
      expect(await store.getRun(runId)).toMatchObject({ status: 'QUEUED', trigger, window });
      const plain = newRunId();
      await start(store, plain);
      expect(await store.getRun(plain)).toMatchObject({ trigger: null, window: null });
    });

    it('lets exactly one of two concurrent starts of the same runId win', async () => {
      const { store } = await make();
      const runId = newRunId();
      const results = await Promise.all([start(store, runId), start(store, runId)]);
      expect(results.filter((result) => result.started)).toHaveLength(1);
    });

    it('completes a run once, with its outcome and the conclusion readout', async () => {
      const { store } = await make();
      const runId = newRunId();
      await start(store, runId);
      clock = STORE_T0 + 42_000;
      await store.completeRun(runId, publishedOutcome());
      const run = await store.getRun(runId);
      expect(run).toMatchObject({
        status: 'SUCCEEDED',
        stopReason: null,
        conclusion: supportedDraft(['x']).conclusion,
        usage: { totalTokens: 2_560 },
        progress: { checks: [{ toolCallId: 'call_01_a', evaluation: 'GAINED' }] },
        publishedResult: { citations: [{ tool_call_id: 'call_01_a' }] },
        endedAt: new Date(STORE_T0 + 42_000).toISOString(),
      });
      await expect(store.completeRun(runId, fallbackOutcome())).rejects.toMatchObject({ code: 'RUN_NOT_RUNNING' });
      expect((await store.getRun(runId))?.status).toBe('SUCCEEDED');
    });

    it('refuses to complete a run that does not exist, and creates nothing', async () => {
      const { store } = await make();
      const runId = newRunId();
      await expect(store.completeRun(runId, failedOutcome())).rejects.toBeInstanceOf(RunStoreError);
      expect(await store.getRun(runId)).toBeNull();
    });

    it('keeps a FALLBACK run’s Draft without publishing it', async () => {
      const { store } = await make();
      const runId = newRunId();
      await start(store, runId);
      await store.completeRun(runId, fallbackOutcome());
      expect(await store.getRun(runId)).toMatchObject({
        status: 'FALLBACK',
        conclusion: null,
        publishedResult: null,
        stopReason: 'DEADLINE',
      });
    });

    it('refuses a cursor that does not belong to the run', async () => {
      const { store } = await make();
      const forged = Buffer.from(JSON.stringify({ pk: 'RUN#someone-else', sk: 'RUN' })).toString('base64url');
      await expect(store.listRunRecords(newRunId(), { cursor: forged })).rejects.toMatchObject({
        code: 'CORRUPT_ITEM',
      });
      await expect(store.listRunRecords(newRunId(), { cursor: 'not-base64-json' })).rejects.toBeInstanceOf(
        RunStoreError,
      );
    });

    it('finds the newest published diagnosis of a session across pages, skipping fallback, failed and running runs', async () => {
      const { store } = await make({ sessionPageSize: 2 });
      const session = `session-${newRunId()}`;
      const runs: string[] = [];
      const outcomes = [
        publishedOutcome(['call_old']),
        publishedOutcome(['call_new']),
        fallbackOutcome(),
        failedOutcome(),
        fallbackOutcome(),
        null,
        failedOutcome(),
      ];
      for (const [index, outcome] of outcomes.entries()) {
        clock = STORE_T0 + index * 60_000;
        const runId = newRunId();
        runs.push(runId);
        await start(store, runId, session);
        if (outcome !== null) await store.completeRun(runId, outcome);
      }
      const turn = buildPreviousTurn(await store.findPreviousRun('E1001', session), DEFAULT_RUN_LIMITS);
      expect(turn).toEqual({
        run_id: runs[1],
        query: 'E1001 的订单从 14:05 开始失败，为什么？',
        conclusion: supportedDraft(['x']).conclusion,
        findings: ['订单服务日志显示调用 payment-gateway 时连接池耗尽'],
        missing_info: [],
      });
      expect(JSON.stringify(turn)).not.toContain('HikariPool');
      expect(
        buildPreviousTurn(await store.findPreviousRun('E1001', `session-none-${newRunId()}`), DEFAULT_RUN_LIMITS),
      ).toBeNull();
    });

    it('never finds another enterprise’s run for a session id both tenants use', async () => {
      const { store } = await make();
      const session = `shared-${newRunId()}`;
      const theirs = newRunId();
      await start(store, theirs, session, 'E1001');
      await store.completeRun(theirs, publishedOutcome(['call_e1001']));
      expect(buildPreviousTurn(await store.findPreviousRun('E2002', session), DEFAULT_RUN_LIMITS)).toBeNull();
      expect(buildPreviousTurn(await store.findPreviousRun('E1001', session), DEFAULT_RUN_LIMITS)).toMatchObject({
        run_id: theirs,
      });
      const ours = newRunId();
      clock = STORE_T0 + 60_000;
      await start(store, ours, session, 'E2002');
      await store.completeRun(ours, publishedOutcome(['call_e2002']));
      expect(buildPreviousTurn(await store.findPreviousRun('E2002', session), DEFAULT_RUN_LIMITS)).toMatchObject({
        run_id: ours,
      });
      expect(buildPreviousTurn(await store.findPreviousRun('E1001', session), DEFAULT_RUN_LIMITS)).toMatchObject({
        run_id: theirs,
      });
      // Case variants are other tenants too (and are refused at the boundary long before this).
      expect(buildPreviousTurn(await store.findPreviousRun('e1001', session), DEFAULT_RUN_LIMITS)).toBeNull();
    });

    it('cuts the previous turn to the byte limit it is given', async () => {
      const { store } = await make();
      const session = `limit-${newRunId()}`;
      const runId = newRunId();
      await start(store, runId, session);
      // NOTE: a conclusion of 900 bytes, so the turn is over the smallest limit a run may have (512 bytes).
      const outcome = publishedOutcome();
      const draft = { ...supportedDraft(['call_01_a']), conclusion: '连接池'.repeat(100) };
      await store.completeRun(runId, { ...outcome, draft, publishedResult: { draft, citations: [] } });
      const large = buildPreviousTurn(await store.findPreviousRun('E1001', session), DEFAULT_RUN_LIMITS);
      const small = buildPreviousTurn(await store.findPreviousRun('E1001', session), { maxPreviousTurnBytes: 520 });
      expect(Buffer.byteLength(JSON.stringify(large))).toBeGreaterThan(520);
      expect(Buffer.byteLength(JSON.stringify(small))).toBeLessThanOrEqual(520);
      expect(small?.conclusion?.length).toBeLessThan(large?.conclusion?.length ?? 0);
    });

    it('keeps the request a run was started for, continueSession included, and shows it on a replay', async () => {
      const { store } = await make();
      const runId = newRunId();
      await store.startRun({ runId, sessionId: 's-a', enterpriseId: 'E1001', query: 'q', continueSession: true });
      const replay = await store.startRun({
        runId,
        sessionId: 's-b',
        enterpriseId: 'E2002',
        query: 'other',
        continueSession: false,
      });
      expect(replay.started).toBe(false);
      expect(replay.run).toMatchObject({ sessionId: 's-a', enterpriseId: 'E1001', query: 'q', continueSession: true });
    });

    it('refuses a completion too large for its item before writing, and the run stays completable', async () => {
      const { store } = await make();
      const runId = newRunId();
      await start(store, runId);
      const outcome = publishedOutcome();
      const huge = { ...outcome, report: { padding: '满'.repeat(120_000) } };
      await expect(store.completeRun(runId, huge)).rejects.toMatchObject({ code: 'RUN_ITEM_TOO_LARGE' });
      expect((await store.getRun(runId))?.status).toBe('RUNNING');
      await store.completeRun(runId, failedOutcome());
      expect((await store.getRun(runId))?.status).toBe('FAILED');
    });

    it('admits at most maxOpenRuns open runs per enterprise, counts a replay once, and frees a place when a run ends', async () => {
      const { store, rawItems } = await make({ maxOpenRuns: 3 });
      const request = (runId: string, enterpriseId = 'E1001') => ({
        runId,
        sessionId: 's-admit',
        enterpriseId,
        query: 'q',
        continueSession: false,
      });
      const ids = [newRunId(), newRunId(), newRunId(), newRunId()];
      await store.queueRun(request(ids[0] as string));
      await store.startRun(request(ids[1] as string));
      await store.queueRun(request(ids[2] as string));
      // A replay of an admitted run is that run, never a refusal and never a second place.
      expect(await store.queueRun(request(ids[0] as string))).toMatchObject({ started: false });
      await expect(store.queueRun(request(ids[3] as string))).rejects.toMatchObject({
        name: 'DiagnosisTenantBusyError',
        code: 'TENANT_BUSY',
      });
      await expect(store.startRun(request(ids[3] as string))).rejects.toMatchObject({ code: 'TENANT_BUSY' });
      // Nothing was written for the refused run; another enterprise has its own bound.
      expect(await store.getRun(ids[3] as string)).toBeNull();
      expect(await rawItems(ids[3] as string)).toEqual([]);
      expect(await store.queueRun(request(newRunId(), 'E2002'))).toMatchObject({ started: true });
      expect((await store.listOpenRuns()).find((open) => open.enterpriseId === 'E1001')?.runIds).toEqual(
        [ids[0], ids[1], ids[2]].sort(),
      );
      // Each way a run ends frees its place: completion, and the cancel of a QUEUED run.
      await store.completeRun(ids[1] as string, failedOutcome());
      await store.requestCancel(ids[0] as string, failedOutcome());
      expect((await store.listOpenRuns()).find((open) => open.enterpriseId === 'E1001')?.runIds).toEqual([ids[2]]);
      expect(await store.queueRun(request(ids[3] as string))).toMatchObject({ started: true });
      // An enterprise whose runs all ended has no open runs to list.
      for (const id of [ids[2], ids[3]] as string[]) await store.requestCancel(id, failedOutcome());
      expect((await store.listOpenRuns()).map((open) => open.enterpriseId)).toEqual(['E2002']);
    });

    it('lets only the execution that owns a QUEUED run (or none, for a run without one) claim it', async () => {
      const { store } = await make();
      const owned = newRunId();
      const own = `arn:aws:states:eu-west-1:123456789012:execution:wf:${owned}`;
      const request = (runId: string) => ({
        runId,
        sessionId: 's-own',
        enterpriseId: 'E1001',
        query: 'q',
        continueSession: false,
      });
      await store.queueRun(request(owned), { executionArn: own });
      expect(await store.getRun(owned)).toMatchObject({ executionArn: own, heartbeatAt: null });
      expect(await store.claimQueuedRun(owned, STORE_T0 + 60_000, { owner: `${own}-stray` })).toBeNull();
      expect(await store.claimQueuedRun(owned, STORE_T0 + 60_000, { owner: null })).toBeNull();
      expect(await store.claimQueuedRun(owned, STORE_T0 + 60_000, { owner: own })).toMatchObject({
        status: 'RUNNING',
        heartbeatAt: new Date(STORE_T0).toISOString(),
      });
      const unowned = newRunId();
      await store.queueRun(request(unowned));
      expect(await store.claimQueuedRun(unowned, STORE_T0 + 60_000, { owner: null })).toMatchObject({
        status: 'RUNNING',
      });
      // A run started by an invocation (a batch item) is owned by its execution and shows a first sign of life.
      const started = newRunId();
      await store.startRun(request(started), { deadlineAt: STORE_T0 + 60_000, executionArn: `${own}-child` });
      expect(await store.getRun(started)).toMatchObject({
        status: 'RUNNING',
        executionArn: `${own}-child`,
        heartbeatAt: new Date(STORE_T0).toISOString(),
      });
    });

    it('claims a QUEUED run for a request only if it was stored with exactly that request, and leaves it otherwise', async () => {
      const { store } = await make();
      const runId = newRunId();
      const own = `arn:aws:states:eu-west-1:123456789012:execution:wf:${runId}`;
      const stored = { sessionId: 's-req', enterpriseId: 'E1001', query: '订单从 14:05 失败', continueSession: false };
      await store.queueRun({ runId, ...stored }, { executionArn: own });
      const claim = (request: typeof stored) => store.claimQueuedRun(runId, STORE_T0 + 60_000, { owner: own, request });
      for (const other of [
        { ...stored, enterpriseId: 'E2002' },
        { ...stored, sessionId: 's-other' },
        { ...stored, query: '订单从 14:05 失败 ' },
        { ...stored, continueSession: true },
      ]) {
        expect(await claim(other)).toBeNull();
        expect(await store.getRun(runId)).toMatchObject({ status: 'QUEUED', heartbeatAt: null });
      }
      expect(await claim(stored)).toMatchObject({ status: 'RUNNING', ...stored });
      // Claimed once: a second claim of the same request finds it RUNNING.
      expect(await claim(stored)).toBeNull();
      const continued = newRunId();
      const again = { ...stored, continueSession: true };
      await store.queueRun({ runId: continued, ...again });
      expect(
        await store.claimQueuedRun(continued, STORE_T0 + 60_000, {
          owner: null,
          request: { ...again, continueSession: false },
        }),
      ).toBeNull();
      expect(await store.claimQueuedRun(continued, STORE_T0 + 60_000, { owner: null, request: again })).toMatchObject({
        status: 'RUNNING',
        continueSession: true,
      });
      // Nothing is claimed for a runId that was never queued, and nothing is written.
      const never = newRunId();
      expect(await store.claimQueuedRun(never, STORE_T0 + 60_000, { owner: null, request: stored })).toBeNull();
      expect(await store.getRun(never)).toBeNull();
    });

    it('keeps a RUNNING run’s heartbeat, and completes it only as it was read when asked to', async () => {
      const { store } = await make();
      const runId = newRunId();
      await start(store, runId);
      clock = STORE_T0 + 30_000;
      expect(await store.heartbeat(runId)).toBe(true);
      const beat = new Date(STORE_T0 + 30_000).toISOString();
      expect((await store.getRun(runId))?.heartbeatAt).toBe(beat);
      // A sweeper that read an older heartbeat does not close the run that showed a sign of life since.
      await expect(
        store.completeRun(runId, failedOutcome(), { ifHeartbeatAt: new Date(STORE_T0).toISOString() }),
      ).rejects.toMatchObject({ code: 'RUN_NOT_RUNNING' });
      expect((await store.getRun(runId))?.status).toBe('RUNNING');
      await store.completeRun(runId, failedOutcome(), { ifHeartbeatAt: beat });
      expect((await store.getRun(runId))?.status).toBe('FAILED');
      expect(await store.heartbeat(runId)).toBe(false);
      expect(await store.heartbeat(newRunId())).toBe(false);
    });

    it('forgets a run id from its enterprise’s open runs on request (the sweeper’s repair), and nothing else', async () => {
      const { store } = await make();
      const [kept, forgotten] = [newRunId(), newRunId()];
      await start(store, kept);
      await start(store, forgotten);
      await store.forgetOpenRun('E1001', forgotten);
      await store.forgetOpenRun('E9999', kept);
      expect((await store.listOpenRuns()).find((open) => open.enterpriseId === 'E1001')?.runIds).toEqual([kept]);
    });

    it('queues a run, lets exactly one invocation claim it, and keeps its deadline', async () => {
      const { store } = await make();
      const runId = newRunId();
      const request = { runId, sessionId: 's-q', enterpriseId: 'E1001', query: 'q', continueSession: false };
      expect(await store.queueRun(request)).toMatchObject({ started: true, run: { status: 'QUEUED' } });
      expect(await store.queueRun(request)).toMatchObject({ started: false, run: { status: 'QUEUED' } });
      const claims = await Promise.all([
        store.claimQueuedRun(runId, STORE_T0 + 60_000),
        store.claimQueuedRun(runId, 1),
      ]);
      expect(claims.filter((claim) => claim !== null)).toHaveLength(1);
      expect(await store.getRun(runId)).toMatchObject({ status: 'RUNNING', deadlineAt: expect.any(String) });
      expect(await store.claimQueuedRun(newRunId(), 1)).toBeNull();
    });

    it('adds a batch to a run’s pseudonym map only at a free sequence, kept as long as the map from the run’s creation', async () => {
      const { store, rawItems } = await make();
      const runId = newRunId();
      const createdAt = new Date(STORE_T0 - 86_400_000).toISOString();
      const batch = (sequence: number, ciphertext: string) => ({
        runId,
        sessionId: 's',
        sequence,
        count: 1,
        sealed: { iv: 'aXY=', tag: 'dGFn', ciphertext },
      });
      expect(await store.appendPseudonyms(batch(1, 'Zmlyc3Q='), createdAt)).toBe(true);
      // A second writer that read the map before the first wrote loses the sequence, and overwrites nothing.
      expect(await store.appendPseudonyms(batch(1, 'c2Vjb25k'), createdAt)).toBe(false);
      expect(await store.appendPseudonyms(batch(2, 'c2Vjb25k'), createdAt)).toBe(true);
      const { records } = await store.listPseudonyms(runId);
      expect(records.map((record) => [record.sequence, record.sealed.ciphertext])).toEqual([
        [1, 'Zmlyc3Q='],
        [2, 'c2Vjb25k'],
      ]);
      const ttl = Math.floor(Date.parse(createdAt) / 1_000) + 30 * 86_400;
      expect((await rawItems(runId)).map((item) => [item.pk, item.ttl])).toEqual([
        [`PSEUDONYMS#${runId}`, ttl],
        [`PSEUDONYMS#${runId}`, ttl],
      ]);
    });

    it('cancels a QUEUED run at once, so it never starts', async () => {
      const { store } = await make();
      const runId = newRunId();
      await store.queueRun({ runId, sessionId: 's', enterpriseId: 'E1001', query: 'q', continueSession: false });
      const cancelled = await store.requestCancel(runId, {
        ...failedOutcome(),
        status: 'CANCELLED',
        stopReason: 'CANCELLED',
      });
      expect(cancelled).toMatchObject({
        status: 'CANCELLED',
        stopReason: 'CANCELLED',
        cancelRequestedAt: expect.any(String),
      });
      expect(await store.claimQueuedRun(runId, STORE_T0 + 60_000)).toBeNull();
      expect(await store.isCancelRequested(runId)).toBe(true);
    });

    it('flags a RUNNING run once for its invocation to stop, and leaves an ended run as it is', async () => {
      const { store } = await make();
      const runId = newRunId();
      await start(store, runId);
      expect(await store.isCancelRequested(runId)).toBe(false);
      const outcome = { ...failedOutcome(), status: 'CANCELLED' as const };
      const flagged = await store.requestCancel(runId, outcome);
      expect(flagged).toMatchObject({ status: 'RUNNING', cancelRequestedAt: expect.any(String) });
      expect(await store.isCancelRequested(runId)).toBe(true);
      clock += 5_000;
      expect((await store.requestCancel(runId, outcome))?.cancelRequestedAt).toBe(flagged?.cancelRequestedAt);
      await store.completeRun(runId, { ...outcome, stopReason: 'CANCELLED' });

      const ended = newRunId();
      await start(store, ended);
      await store.completeRun(ended, publishedOutcome());
      expect(await store.requestCancel(ended, outcome)).toMatchObject({ status: 'SUCCEEDED', cancelRequestedAt: null });
      expect(await store.requestCancel(newRunId(), outcome)).toBeNull();
    });

    it('shows the live progress of a RUNNING run and stops taking it once the run ended', async () => {
      const { store } = await make();
      const runId = newRunId();
      await start(store, runId);
      const progress = publishedOutcome().progress;
      if (progress === null) throw new Error('fixture without progress');
      const usage = { ...publishedOutcome().usage, modelCalls: 1 };
      await store.updateProgress(runId, { usage, progress });
      expect(await store.getRun(runId)).toMatchObject({ status: 'RUNNING', usage: { modelCalls: 1 }, progress });
      await store.completeRun(runId, failedOutcome());
      await store.updateProgress(runId, { usage: { ...usage, modelCalls: 9 }, progress });
      expect(await store.getRun(runId)).toMatchObject({ status: 'FAILED', usage: failedOutcome().usage });
    });
  });
}
