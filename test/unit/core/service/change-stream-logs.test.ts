// NOTE: over 300 lines on purpose: the change stream read through query_logs: its service name's parse, the reader and
// the rows at the tool boundary, over one set of change records.
import {
  type ChangeRecord,
  createChangeStreamLogs,
  type EvidenceAdapter,
  type LogsData,
  type LogsInput,
  parseChangeStreamService,
  type ToolCallRequest,
} from '@diagnosis/core';
import { createMemoryChangeStore } from '@diagnosis/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { projectEvidence } from '../../../../packages/core/src/tools/evidence-projection.ts';
import { toModelObservation } from '../../../../packages/core/src/tools/model-observation.ts';

const SYMPTOM = Date.parse('2026-11-30T06:05:00.000Z');
const WINDOW_FROM = SYMPTOM - 30 * 60_000;
const MINUTE = 60_000;

let counter = 0;
function change(overrides: Partial<ChangeRecord> = {}): ChangeRecord {
  counter += 1;
  return {
    enterpriseId: 'E1001',
    source: 'webhook',
    origin: 'argocd-e1001',
    eventId: `event-${counter}`,
    at: new Date(SYMPTOM - 10 * MINUTE).toISOString(),
    service: 'order-service',
    environment: 'production',
    kind: 'deploy',
    ref: `v2.14.${counter}`,
    actor: 'alice',
    summary: 'order-service 同步到 v2.14',
    url: 'https://argocd.example.com/applications/order-service',
    receivedAt: new Date(SYMPTOM).toISOString(),
    ...overrides,
  };
}

const logsSeen: LogsInput[] = [];
const logs: EvidenceAdapter<LogsInput, LogsData> = {
  execute: async (call) => {
    logsSeen.push(call.input);
    return { status: 'EMPTY' };
  },
};

function call(input: Partial<LogsInput>, overrides: Partial<ToolCallRequest<LogsInput>> = {}) {
  return {
    runId: 'run-1',
    sessionId: 'session-1',
    enterpriseId: 'E1001',
    toolCallId: 'call_1',
    toolName: 'query_logs',
    input: {
      service: 'changes',
      start_time: new Date(WINDOW_FROM).toISOString(),
      end_time: new Date(SYMPTOM + 30 * MINUTE).toISOString(),
      ...input,
    },
    signal: new AbortController().signal,
    incident: { windowFromMs: WINDOW_FROM, symptomAtMs: SYMPTOM },
    ...overrides,
  } satisfies ToolCallRequest<LogsInput>;
}

describe('parseChangeStreamService', () => {
  it('reads the change stream and its filters when the name is changes', () => {
    expect(parseChangeStreamService('changes')).toEqual({});
    expect(parseChangeStreamService('changes/order-service')).toEqual({ service: 'order-service' });
    expect(parseChangeStreamService('changes/order-service/flag')).toEqual({ service: 'order-service', kind: 'flag' });
    expect(parseChangeStreamService('changes/*/config')).toEqual({ kind: 'config' });
  });

  it('leaves every other service to the logs when the name is not the stream', () => {
    expect(parseChangeStreamService('order-service')).toBeNull();
    expect(parseChangeStreamService('changes-service')).toBeNull();
  });

  it('refuses a filter when it is no service or kind', () => {
    for (const name of ['changes/', 'changes/*', 'changes/a b', 'changes/x/release', 'changes/x/deploy/y']) {
      expect(parseChangeStreamService(name)).toBe('INVALID');
    }
  });
});

describe('createChangeStreamLogs', () => {
  it('places each change against the symptom when the run has an incident', async () => {
    const changes = createMemoryChangeStore();
    await changes.record(change({ at: new Date(WINDOW_FROM + MINUTE).toISOString(), ref: 'inside' }));
    await changes.record(change({ at: new Date(SYMPTOM + MINUTE).toISOString(), ref: 'after' }));
    await changes.record(change({ at: new Date(SYMPTOM).toISOString(), ref: 'at-symptom' }));
    const adapter = createChangeStreamLogs({ logs, changes });

    const result = await adapter.execute(
      call({}, { incident: { windowFromMs: WINDOW_FROM + 2 * MINUTE, symptomAtMs: SYMPTOM } }),
    );

    expect(result.status).toBe('OK');
    const lines = result.status === 'OK' ? result.data.lines : [];
    expect(lines.map((line) => [line.change?.ref, line.change?.placement])).toEqual([
      ['after', 'AFTER_SYMPTOM'],
      ['at-symptom', 'BEFORE_SYMPTOM'],
      ['inside', 'BEFORE_WINDOW'],
    ]);
  });

  it('answers one row per change with its time, service, kind, ref, actor, summary and link', async () => {
    const changes = createMemoryChangeStore();
    const recorded = change({ kind: 'flag', ref: 'checkout-v2', actor: 'bob', summary: 'flag checkout-v2 on' });
    await changes.record(recorded);
    const result = await createChangeStreamLogs({ logs, changes }).execute(call({}));

    expect(result).toEqual({
      status: 'OK',
      data: {
        matched: 1,
        lines: [
          {
            timestamp: recorded.at,
            level: 'flag',
            service: 'order-service',
            message: 'flag checkout-v2 on',
            change: {
              change_id: expect.stringMatching(/^chg_[a-z2-7]{12}$/),
              kind: 'flag',
              ref: 'checkout-v2',
              actor: 'bob',
              url: 'https://argocd.example.com/applications/order-service',
              placement: 'BEFORE_SYMPTOM',
            },
          },
        ],
      },
    });
  });

  it('filters by the changed service, the kind and the keyword when the name and input say so', async () => {
    const changes = createMemoryChangeStore();
    await changes.record(change({ service: 'order-service', kind: 'deploy', ref: 'order-deploy' }));
    await changes.record(change({ service: 'order-service', kind: 'config', ref: 'order-config' }));
    await changes.record(change({ service: 'payment-gateway', kind: 'deploy', ref: 'pay-deploy' }));
    const adapter = createChangeStreamLogs({ logs, changes });
    const refs = async (input: Partial<LogsInput>) => {
      const result = await adapter.execute(call(input));
      return result.status === 'OK' ? result.data.lines.map((line) => line.change?.ref).sort() : [];
    };

    expect(await refs({ service: 'changes/order-service' })).toEqual(['order-config', 'order-deploy']);
    expect(await refs({ service: 'changes/*/deploy' })).toEqual(['order-deploy', 'pay-deploy']);
    expect(await refs({ service: 'changes/order-service/config' })).toEqual(['order-config']);
    expect(await refs({ service: 'changes', keyword: 'PAY' })).toEqual(['pay-deploy']);
  });

  it('reads only the call window when changes landed outside it', async () => {
    const changes = createMemoryChangeStore();
    await changes.record(change({ at: new Date(WINDOW_FROM - MINUTE).toISOString() }));
    const result = await createChangeStreamLogs({ logs, changes }).execute(call({}));
    expect(result).toEqual({ status: 'EMPTY' });
  });

  it('leaves rows unplaced when the run has no incident', async () => {
    const changes = createMemoryChangeStore();
    await changes.record(change());
    const { incident: _none, ...untriggered } = call({});
    const result = await createChangeStreamLogs({ logs, changes }).execute(untriggered);
    expect(result.status === 'OK' ? result.data.lines[0]?.change?.placement : 'missing').toBeNull();
  });

  it('hands every other service to the logs adapter when the name is not the stream', async () => {
    logsSeen.length = 0;
    const result = await createChangeStreamLogs({ logs, changes: createMemoryChangeStore() }).execute(
      call({ service: 'order-service' }),
    );
    expect(result).toEqual({ status: 'EMPTY' });
    expect(logsSeen.map((input) => input.service)).toEqual(['order-service']);
  });

  it('refuses a level, a trace id or a bad filter when the stream is asked', async () => {
    const adapter = createChangeStreamLogs({ logs, changes: createMemoryChangeStore() });
    for (const input of [{ level: 'ERROR' as const }, { trace_id: 't-1' }, { service: 'changes/x/release' }]) {
      expect(await adapter.execute(call(input))).toMatchObject({ status: 'ERROR', code: 'INVALID_QUERY' });
    }
  });

  it('answers UNAVAILABLE with the class only when the store fails', async () => {
    const failing = {
      list: async () => {
        throw new Error('connect ECONNREFUSED 10.0.0.1 secret');
      },
    };
    const result = await createChangeStreamLogs({ logs, changes: failing }).execute(call({}));
    expect(result).toEqual({ status: 'ERROR', code: 'UNAVAILABLE', detail: 'change stream read failed: Error' });
  });

  it('answers TIMEOUT when the store does not answer in time', async () => {
    const hanging = {
      list: (_enterpriseId: string, query: { signal?: AbortSignal }) =>
        new Promise<never>((_resolve, reject) => query.signal?.addEventListener('abort', () => reject(new Error('x')))),
    };
    const result = await createChangeStreamLogs({ logs, changes: hanging, timeoutMs: 5 }).execute(call({}));
    expect(result).toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });
  });

  it('never answers a run of one enterprise with a change of another, whatever the changes and the query', async () => {
    const services = ['order-service', 'payment-gateway', 'E1002', 'changes'];
    const arbitraryChange = fc.record({
      enterpriseId: fc.constantFrom('E1001', 'E1002'),
      service: fc.constantFrom(...services),
      kind: fc.constantFrom('deploy', 'config', 'flag', 'infra' as const),
      minute: fc.integer({ min: -40, max: 40 }),
      summary: fc.string({ minLength: 1, maxLength: 30 }),
    });
    const arbitraryQuery = fc.record({
      filter: fc.constantFrom('changes', ...services.map((service) => `changes/${service}`), 'changes/*/deploy'),
      keyword: fc.option(fc.constantFrom('E1001', 'E1002', 'order', 'pay'), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbitraryChange, { maxLength: 12 }),
        arbitraryQuery,
        fc.constantFrom('E1001', 'E1002'),
        async (recorded, query, runEnterprise) => {
          const changes = createMemoryChangeStore();
          const ids = new Map<string, string>();
          for (const [index, entry] of recorded.entries()) {
            const record = change({
              enterpriseId: entry.enterpriseId,
              eventId: `e-${index}`,
              service: entry.service,
              kind: entry.kind,
              at: new Date(SYMPTOM + entry.minute * MINUTE).toISOString(),
              ref: `ref-${entry.enterpriseId}-${index}`,
              summary: `${entry.summary} ${entry.enterpriseId}`,
            });
            await changes.record(record);
            ids.set(record.ref ?? '', record.enterpriseId);
          }
          const result = await createChangeStreamLogs({ logs, changes }).execute(
            call(
              { service: query.filter, ...(query.keyword === undefined ? {} : { keyword: query.keyword }) },
              { enterpriseId: runEnterprise },
            ),
          );
          const lines = result.status === 'OK' ? result.data.lines : [];
          for (const line of lines) expect(ids.get(line.change?.ref ?? '')).toBe(runEnterprise);
          const mine = recorded.filter((entry) => entry.enterpriseId === runEnterprise).length;
          expect(lines.length).toBeLessThanOrEqual(mine);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('change-stream rows at the tool boundary', () => {
  it('masks the sender texts and keeps the id, kind and placement when projected', async () => {
    const changes = createMemoryChangeStore();
    await changes.record(change({ actor: 'alice 13812345678', summary: '回滚 <b>13812345678</b>' }));
    const result = await createChangeStreamLogs({ logs, changes }).execute(call({}));
    const data = result.status === 'OK' ? result.data : null;
    const masker = {
      text: (value: string) => value.replaceAll('13812345678', '<phone_1>'),
      cell: (value: string) => value,
    };

    const projected = projectEvidence('query_logs', data, masker);

    expect(projected.ok).toBe(true);
    const line = projected.ok && 'lines' in projected.data ? projected.data.lines[0] : undefined;
    expect(line?.message).toBe('回滚 <b><phone_1></b>');
    expect(line?.change).toMatchObject({ actor: 'alice <phone_1>', kind: 'deploy', placement: 'BEFORE_SYMPTOM' });
    expect(JSON.stringify(projected)).not.toContain('13812345678');
  });

  it('refuses a row when its id, kind or placement is not of the fixed form', () => {
    const line = (change: Record<string, unknown>) => ({
      matched: 1,
      lines: [{ timestamp: 't', level: 'deploy', service: 's', message: 'm', change }],
    });
    const valid = { change_id: 'chg_abcdefghijkl', kind: 'deploy', ref: null, actor: null, url: null, placement: null };
    expect(projectEvidence('query_logs', line(valid)).ok).toBe(true);
    expect(projectEvidence('query_logs', line({ ...valid, change_id: 'chg_x' })).ok).toBe(false);
    expect(projectEvidence('query_logs', line({ ...valid, kind: 'release' })).ok).toBe(false);
    expect(projectEvidence('query_logs', line({ ...valid, placement: 'LATER' })).ok).toBe(false);
    expect(projectEvidence('query_logs', line({ ...valid, ref: 7 })).ok).toBe(false);
  });

  it('shows the model one table row per change with its placement when the observation is a change stream', async () => {
    const changes = createMemoryChangeStore();
    await changes.record(change({ ref: 'v1', at: '2026-11-30T06:01:40.000Z' }));
    const result = await createChangeStreamLogs({ logs, changes }).execute(call({}));
    const data = result.status === 'OK' ? result.data : undefined;
    const model = toModelObservation({
      tool_call_id: 'call_1',
      evidence_status: 'OK',
      ...(data ? { data } : {}),
    } as never);
    expect(model.data).toEqual({
      matched: 1,
      date: '2026-11-30',
      offset: 'Z',
      columns: ['time', 'service', 'kind', 'ref', 'actor', 'summary', 'url', 'placement', 'change_id'],
      rows: [
        [
          '06:01:40.000',
          'order-service',
          'deploy',
          'v1',
          'alice',
          'order-service 同步到 v2.14',
          'https://argocd.example.com/applications/order-service',
          'BEFORE_SYMPTOM',
          expect.stringMatching(/^chg_/),
        ],
      ],
    });
  });
});
