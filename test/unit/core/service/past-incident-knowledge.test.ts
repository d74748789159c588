import {
  createPastIncidentKnowledge,
  type EvidenceAdapter,
  type KnowledgeData,
  type KnowledgeInput,
  type PastIncident,
  type ToolCallRequest,
} from '@diagnosis/core';
import { createMemoryPastIncidentStore, type MemoryTable } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { projectEvidence } from '../../../../packages/core/src/tools/evidence-projection.ts';

const NOW = Date.parse('2026-12-01T00:00:00.000Z');
const runbooks: EvidenceAdapter<KnowledgeInput, KnowledgeData> = {
  execute: async () => ({
    status: 'OK',
    data: {
      hits: [
        {
          doc_id: 'order-failures',
          title: '订单失败排查',
          snippet: '先看支付链路',
          score: 80,
          service: 'order-service',
        },
        { doc_id: 'db-pool', title: '连接池耗尽', snippet: '看 HikariPool', score: 20 },
      ],
    },
  }),
};
const call = (input: KnowledgeInput, enterpriseId = 'E1001'): ToolCallRequest<KnowledgeInput> => ({
  runId: 'run-now',
  sessionId: 's',
  enterpriseId,
  toolCallId: 'k1',
  toolName: 'lookup_knowledge',
  input,
  signal: new AbortController().signal,
});
const incident = (runId: string, overrides: Partial<PastIncident> = {}): PastIncident => ({
  enterpriseId: 'E1001',
  runId,
  occurredAt: '2026-11-02T06:00:00.000Z',
  services: ['order-service'],
  conclusion: '订单失败：支付渠道 WXPAY 在 MySQL 中被停用',
  rootCause: '渠道被运营误停用',
  rating: 'CORRECT',
  ratedAt: '2026-11-02T08:00:00.000Z',
  expiresAt: NOW + 86_400_000,
  ...overrides,
});

async function knowledgeWith(incidents: PastIncident[]) {
  const store = createMemoryPastIncidentStore();
  for (const memory of incidents) await store.remember(memory);
  return { store, adapter: createPastIncidentKnowledge({ runbooks, incidents: store, now: () => NOW }) };
}

describe('createPastIncidentKnowledge', () => {
  it('ranks a matching past incident beside the runbooks, marked with its run, time and rating', async () => {
    const { adapter } = await knowledgeWith([incident('run-old')]);
    const result = await adapter.execute(call({ query: '订单失败 支付渠道', top_k: 3 }));
    if (result.status !== 'OK') throw new Error('expected hits');
    expect(result.data.hits.map((hit) => hit.doc_id)).toEqual(['order-failures', 'past-incident:run-old', 'db-pool']);
    expect(result.data.hits[1]).toMatchObject({
      source: 'past_incident',
      run_id: 'run-old',
      occurred_at: '2026-11-02T06:00:00.000Z',
      rating: 'CORRECT',
      score: 1,
      service: 'order-service',
    });
    expect(result.data.hits[1]?.snippet).toContain('渠道被运营误停用');
    // The marks pass the projection exactly; a runbook hit gets none.
    const projected = projectEvidence('lookup_knowledge', result.data);
    expect(projected).toMatchObject({ ok: true, data: { hits: [{}, { source: 'past_incident' }, {}] } });
    expect(projected.ok && projected.data && 'hits' in projected.data && projected.data.hits[0]).not.toHaveProperty(
      'source',
    );
  });

  it('answers exactly as the runbooks did when no past incident matches', async () => {
    const { adapter } = await knowledgeWith([incident('run-old', { conclusion: 'TLS 证书过期', rootCause: null })]);
    expect(await adapter.execute(call({ query: '订单失败 支付渠道' }))).toEqual(
      await runbooks.execute(call({ query: 'x' })),
    );
  });

  it('reads only the calling run’s enterprise, and skips a memory tagged with another service', async () => {
    const { adapter } = await knowledgeWith([
      incident('run-e2002', { enterpriseId: 'E2002' }),
      incident('run-inventory', { services: ['inventory-service'] }),
    ]);
    const result = await adapter.execute(call({ query: '订单失败 支付渠道', service: 'order-service' }));
    expect(JSON.stringify(result)).not.toContain('run-e2002');
    expect(JSON.stringify(result)).not.toContain('run-inventory');
    const other = await adapter.execute(call({ query: '订单失败 支付渠道' }, 'E2002'));
    expect(JSON.stringify(other)).toContain('past-incident:run-e2002');
  });

  it('uses the other memories when one of the newest is unreadable, and says so by class and code only', async () => {
    const table: MemoryTable = new Map();
    const store = createMemoryPastIncidentStore({ table });
    await store.remember(incident('run-readable'));
    const [readable] = [...table.values()].filter((item) => item.run_id === 'run-readable');
    if (readable === undefined) throw new Error('the memory was not stored');
    table.set('PAST#E1001|AT#2026-11-03T06:00:00.000Z#run-bad', {
      ...readable,
      sk: 'AT#2026-11-03T06:00:00.000Z#run-bad',
      run_id: 'run-bad',
      occurred_at: '2026-11-03T06:00:00.000Z',
      rating: 'SECRET-RATING',
    });
    const notices: string[][] = [];
    const failures: string[] = [];
    const adapter = createPastIncidentKnowledge({
      runbooks,
      incidents: store,
      now: () => NOW,
      onRetrievalFailure: (cause) => failures.push(cause),
      onUnreadableItem: (errorClass, code) => notices.push([errorClass, code]),
    });
    const result = JSON.stringify(await adapter.execute(call({ query: '订单失败 支付渠道' })));
    expect(result).toContain('past-incident:run-readable');
    expect(result).not.toContain('run-bad');
    expect(notices).toEqual([['RunStoreError', 'CORRUPT_ITEM']]);
    expect(failures).toEqual([]);
  });

  it('answers with the runbooks alone when the memory read fails or outlasts its time, and says which', async () => {
    const failures: string[] = [];
    const stalled = createPastIncidentKnowledge({
      runbooks,
      incidents: {
        recent: (_enterprise, { signal }) =>
          new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))),
      },
      retrieval: { timeoutMs: 5 },
      onRetrievalFailure: (cause) => failures.push(cause),
    });
    expect(await stalled.execute(call({ query: '订单失败' }))).toEqual(await runbooks.execute(call({ query: 'x' })));
    const broken = createPastIncidentKnowledge({
      runbooks,
      incidents: { recent: async () => Promise.reject(new TypeError('boom')) },
      onRetrievalFailure: (cause) => failures.push(cause),
    });
    expect((await broken.execute(call({ query: '订单失败' }))).status).toBe('OK');
    expect(failures).toEqual(['TIMEOUT', 'UNAVAILABLE']);
  });
});
