import { executeDiagnosisRun, openPseudonymBatches } from '@diagnosis/core';
import { createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { maskNewRunTexts } from '../../../../packages/core/src/service/mask-incident-texts.ts';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';
import { envelope, LOGS_INPUT, noConclusionDraft } from '../../../support/run-fixtures.ts';
import { observationsIn, scriptedModel, textRound, toolRound } from '../../../support/scripted-model.ts';

const SECRET = 'service-test-masking-secret-of-32-characters!';
const PHONE = '13912345678';
const command = {
  sessionId: 's-mask',
  enterpriseId: 'E1001',
  query: 'E1001 的订单从 14:05 开始失败，为什么？',
  continueSession: false,
  remainingMs: 60_000,
};
const logs = {
  query_logs: () => ({
    status: 'OK' as const,
    data: {
      matched: 1,
      lines: [
        {
          timestamp: '2026-11-30T14:01:00+08:00',
          level: 'ERROR',
          service: 'order-service',
          message: `pay failed user=${PHONE} password=s3cret-pw`,
        },
      ],
    },
  }),
};

/** The model's Draft whose finding (citing call number `ref`) and conclusion name the pseudonym the run showed. */
const draftNaming = (phone: string, ref: number) => ({
  conclusion: `用户 ${phone} 的支付失败`,
  analysis: [
    {
      type: 'FINDING',
      statement: `日志显示用户 ${phone} 支付失败`,
      evidence_status: 'SUPPORTED',
      refs: [ref],
      scope: null,
    },
  ],
  action_plan: [],
  recommendations: [],
  limitations: { checked_scope: [], missing_info: [] },
});

const userMessageOf = (model: ReturnType<typeof scriptedModel>) => {
  const user = model.doGenerateCalls[0]?.prompt.find((message) => message.role === 'user');
  return user?.role === 'user' && user.content[0]?.type === 'text' ? user.content[0].text : '';
};

describe('executeDiagnosisRun with masking', () => {
  it('publishes what the model saw, records the masking, and hands a follow-up the turn masked with its own key', async () => {
    const store = createMemoryStores();
    const deps = (model: ReturnType<typeof scriptedModel>) => ({
      model,
      evidence: createFakeEvidence(logs).evidence,
      createStore: () => store,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
      masking: { mode: 'identifiers' as const, secret: SECRET },
    });
    let firstPhone = '';
    const first = scriptedModel([
      toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
      (options) => {
        firstPhone = JSON.stringify(observationsIn(options.prompt)).match(/<phone:[a-z2-7]{5}>/)?.[0] ?? '';
        return textRound(JSON.stringify(draftNaming(firstPhone, 1)));
      },
    ]);
    const published = await executeDiagnosisRun({ ...command, runId: 'run-turn-1' }, deps(first));
    expect(published.status).toBe('PUBLISHED');
    expect(JSON.stringify(published)).toContain(firstPhone);
    expect(JSON.stringify([...store.items.values()].filter((item) => !item.pk.startsWith('PSEUDONYMS#')))).not.toMatch(
      new RegExp(`${PHONE}|s3cret-pw`),
    );
    expect((await store.getRun('run-turn-1'))?.masking).toBe('identifiers');

    const second = scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]);
    await executeDiagnosisRun({ ...command, runId: 'run-turn-2', continueSession: true }, deps(second));
    const turn = JSON.parse(userMessageOf(second)).previous_turn as { conclusion: string };
    const secondPhone = turn.conclusion.match(/<phone:[a-z2-7]{5}>/)?.[0];
    // The same customer, under the follow-up's own pseudonym: never the real value, never the first run's token.
    expect(secondPhone).toBeDefined();
    expect(secondPhone).not.toBe(firstPhone);
    expect(userMessageOf(second)).not.toContain(PHONE);
    const secondMap = openPseudonymBatches(SECRET, 'run-turn-2', (await store.listPseudonyms('run-turn-2')).records);
    expect(secondMap).toContainEqual({ token: secondPhone, kind: 'phone', value: PHONE });
  });

  it('masks secrets only in secrets-only mode, and records that it did', async () => {
    const store = createMemoryStores();
    const model = scriptedModel([
      toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
      textRound(JSON.stringify(noConclusionDraft())),
    ]);
    await executeDiagnosisRun(
      { ...command, runId: 'run-secrets-only' },
      {
        model,
        evidence: createFakeEvidence(logs).evidence,
        createStore: () => store,
        flushReserveMs: 100,
        limits: { finalRoundReserveMs: 100 },
        masking: { mode: 'secrets-only', secret: SECRET },
      },
    );
    const seen = JSON.stringify(observationsIn(model.doGenerateCalls[1]?.prompt ?? []));
    expect(seen).toContain(`user=${PHONE} password=[REDACTED:password]`);
    expect((await store.getRun('run-secrets-only'))?.masking).toBe('secrets-only');
    expect((await store.listPseudonyms('run-secrets-only')).records).toEqual([]);
  });
});

describe('executeDiagnosisRun of a triggered run (issue 32, item 10)', () => {
  it('takes in the map its trigger wrote: the question’s pseudonym is restored for a tool, and the run’s batches follow', async () => {
    const store = createMemoryStores();
    const runId = 'run-triggered-1';
    const sessionId = 'incident-s-1';
    const masking = { mode: 'identifiers' as const, secret: SECRET };
    // What the trigger did: the question masked with the run's key, its values sealed as MAP#0001.
    const { query } = await maskNewRunTexts(
      { query: '告警：客户 13812345678 支付失败', title: 'payment 5xx' },
      { runId, sessionId, createdAt: new Date().toISOString() },
      { config: masking, pseudonyms: store },
    );
    const questionPhone = query.match(/<phone:[a-z2-7]{5}>/)?.[0] ?? '';
    const trigger = {
      source: 'cloudwatch' as const,
      incidentKey: 'arn:aws:cloudwatch:cn-north-1:123456789012:alarm:x@2026-11-30T06:05:12.211Z',
      eventId: 'evt-1',
      title: 'payment 5xx',
      startedAt: '2026-11-30T06:05:12.211Z',
    };
    await store.queueRun({ runId, sessionId, enterpriseId: 'E1001', query, continueSession: false, trigger });
    const keywords: unknown[] = [];
    const evidence = createFakeEvidence({
      query_logs: (call) => {
        keywords.push((call.input as { keyword?: unknown }).keyword);
        return logs.query_logs();
      },
    }).evidence;
    let observed = '';
    const model = scriptedModel([
      toolRound([{ id: 'call-1', name: 'query_logs', input: envelope({ ...LOGS_INPUT, keyword: questionPhone }) }]),
      (options) => {
        observed = JSON.stringify(observationsIn(options.prompt));
        return textRound(JSON.stringify(noConclusionDraft()));
      },
    ]);
    await executeDiagnosisRun(
      { ...command, runId, sessionId, query },
      { model, evidence, createStore: () => store, flushReserveMs: 100, limits: { finalRoundReserveMs: 100 }, masking },
    );
    // The adapter got the real value behind the question's pseudonym; the model never saw it.
    expect(keywords).toEqual(['13812345678']);
    expect(observed).not.toContain('UNKNOWN_PSEUDONYM');
    expect(userMessageOf(model)).not.toContain('13812345678');
    // The trigger's batch is MAP#0001, the run's own (the logs' phone) MAP#0002: nothing overwritten.
    const { records } = await store.listPseudonyms(runId);
    expect(records.map((record) => record.sequence)).toEqual([1, 2]);
    expect(openPseudonymBatches(SECRET, runId, records).map((entry) => entry.value)).toEqual(['13812345678', PHONE]);
  });
});

describe('executeDiagnosisRun of a triggered follow-up', () => {
  it('reads its own map and the previous run’s together, then restores its own before it re-keys the previous turn', async () => {
    const store = createMemoryStores();
    const masking = { mode: 'identifiers' as const, secret: SECRET };
    const sessionId = 'incident-s-2';
    // A published first run of the session, naming the logs' phone.
    const first = scriptedModel([
      toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
      (options) =>
        textRound(
          JSON.stringify(
            draftNaming(JSON.stringify(observationsIn(options.prompt)).match(/<phone:[a-z2-7]{5}>/)?.[0] ?? '', 1),
          ),
        ),
    ]);
    const base = {
      evidence: createFakeEvidence(logs).evidence,
      flushReserveMs: 100,
      limits: { finalRoundReserveMs: 100 },
      masking,
    };
    await executeDiagnosisRun(
      { ...command, sessionId, runId: 'run-fire-1' },
      { ...base, model: first, createStore: () => store },
    );
    // The alarm fires again: its trigger queues a follow-up whose question it masked with the new run's key.
    const runId = 'run-fire-2';
    const { query } = await maskNewRunTexts(
      { query: '告警再次触发：客户 13812345678 支付失败', title: 'payment 5xx' },
      { runId, sessionId, createdAt: new Date().toISOString() },
      { config: masking, pseudonyms: store },
    );
    const trigger = {
      source: 'cloudwatch' as const,
      incidentKey: 'arn:aws:cloudwatch:cn-north-1:123456789012:alarm:x@2026-11-30T06:25:12.211Z',
      eventId: 'evt-2',
      title: 'payment 5xx',
      startedAt: '2026-11-30T06:25:12.211Z',
    };
    await store.queueRun({ runId, sessionId, enterpriseId: 'E1001', query, continueSession: true, trigger });
    let inFlight = 0;
    let mostInFlight = 0;
    const reads: string[] = [];
    const counted = {
      ...store,
      listPseudonyms: async (...args: Parameters<typeof store.listPseudonyms>) => {
        reads.push(args[0]);
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return store.listPseudonyms(...args);
      },
    };
    const second = scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]);
    await executeDiagnosisRun(
      { ...command, sessionId, runId, query, continueSession: true },
      { ...base, model: second, createStore: () => counted as typeof store },
    );

    expect(reads.slice(0, 2).sort()).toEqual(['run-fire-1', 'run-fire-2']);
    expect(mostInFlight).toBe(2);
    // Both maps were used: the question's pseudonym is this run's first batch, the previous turn's phone re-keyed.
    const message = userMessageOf(second);
    expect(message).not.toMatch(/13812345678|13912345678/);
    const turn = JSON.parse(message).previous_turn as { conclusion: string };
    const rekeyed = turn.conclusion.match(/<phone:[a-z2-7]{5}>/)?.[0];
    const map = openPseudonymBatches(SECRET, runId, (await store.listPseudonyms(runId)).records);
    expect(map.map((entry) => entry.value)).toEqual(['13812345678', PHONE]);
    expect(map).toContainEqual({ token: rekeyed, kind: 'phone', value: PHONE });
  });
});
