// NOTE: over 300 lines on purpose: one requirement of the spec (evidence tools execute through the harness boundary),
// each of its scenarios a named test.
import { MAX_OBSERVATION_BYTES, PROJECTION_LIMITS } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { knowledgeHit } from '../../../support/fake-evidence.ts';
import {
  draftAnswer,
  envelope,
  KNOWLEDGE_INPUT,
  LOGS_INPUT,
  noConclusionDraft,
  supportedDraft,
} from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound } from '../../../support/scripted-model.ts';

const final = (ids: string[] = []) =>
  textRound(draftAnswer(ids.length > 0 ? supportedDraft(ids) : noConclusionDraft()));
const lastObservations = (model: Awaited<ReturnType<typeof diagnose>>['model']) =>
  observationsIn(model.doGenerateCalls.at(-1)?.prompt ?? []);

/** Every observation in full as the model first read it, in call order (a later request may fold it). */
const observationsRead = (model: Awaited<ReturnType<typeof diagnose>>['model']) => {
  const byId = new Map<unknown, Record<string, unknown>>();
  for (const call of model.doGenerateCalls) {
    for (const observation of observationsIn(call.prompt)) {
      if (!byId.has(observation.tool_call_id)) byId.set(observation.tool_call_id, observation);
    }
  }
  return [...byId.values()];
};

describe('runDiagnosis — Requirement: evidence tools execute through the harness boundary', () => {
  it('gives the RAG adapter only the unwrapped request and the exact framework id when it requests first evidence', async () => {
    const { outcome, adapterCalls, audit } = await diagnose([
      toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
      final(['call-1']),
    ]);
    expect(outcome.ok).toBe(true);
    expect(adapterCalls).toHaveLength(1);
    const [call] = adapterCalls;
    expect(call).toMatchObject({
      runId: 'run-1',
      sessionId: 'session-1',
      enterpriseId: 'E1001',
      toolCallId: 'call-1',
      toolName: 'lookup_knowledge',
      input: KNOWLEDGE_INPUT,
    });
    expect(call?.signal).toBeInstanceOf(AbortSignal);
    expect(audit.tools).toHaveLength(1);
    expect(audit.tools[0]).toMatchObject({ runId: 'run-1', sessionId: 'session-1', toolCallId: 'call-1' });
    expect(outcome.ok && outcome.result.progress.checks).toEqual([
      { toolCallId: 'call-1', toolName: 'lookup_knowledge', status: 'READY', empty: false, evaluation: 'PENDING' },
    ]);
  });

  it('executes the next tool only when its envelope evaluates the exact pending call', async () => {
    const { outcome, adapterCalls } = await diagnose([
      toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
      toolRound([
        {
          id: 'call-2',
          name: 'query_logs',
          input: envelope(LOGS_INPUT, { tool_call_id: 'call-1', evaluation: 'NO_GAIN' }),
        },
      ]),
      final(['call-2']),
    ]);
    expect(adapterCalls.map((call) => call.toolCallId)).toEqual(['call-1', 'call-2']);
    expect(adapterCalls[1]?.input).toEqual(LOGS_INPUT);
    expect(outcome.ok && outcome.result.progress.checks.map((check) => check.evaluation)).toEqual([
      'NO_GAIN',
      'PENDING',
    ]);
  });

  it('returns a repair observation naming the expected id when the model omits previous_observation', async () => {
    const { model, adapterCalls, audit, outcome } = await diagnose([
      toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
      toolRound([{ id: 'call-2', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
      final(['call-1']),
    ]);
    expect(adapterCalls.map((call) => call.toolCallId)).toEqual(['call-1']);
    const rejection = lastObservations(model)[1];
    expect(rejection).toMatchObject({
      tool_call_id: 'call-2',
      evidence_status: 'REJECTED',
      code: 'MISSING_PREVIOUS_OBSERVATION',
    });
    expect(rejection?.message).toContain('previous_observation');
    expect(rejection?.message).toContain('"call-1"');
    expect(audit.tools[1]).toMatchObject({ toolCallId: 'call-2', disposition: 'REJECTED', status: null });
    expect(outcome.ok && outcome.result.progress).toMatchObject({ toolCalls: 1, rejectedToolCalls: 1 });
  });

  it.each([
    ['names another call', { tool_call_id: 'call-9', evaluation: 'GAINED' as const }],
    ['names the call itself', { tool_call_id: 'call-2', evaluation: 'GAINED' as const }],
  ])('rejects with PREVIOUS_OBSERVATION_MISMATCH when previous_observation %s', async (_label, previous) => {
    const { model, adapterCalls } = await diagnose([
      toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
      toolRound([{ id: 'call-2', name: 'query_logs', input: envelope(LOGS_INPUT, previous) }]),
      final(['call-1']),
    ]);
    expect(adapterCalls).toHaveLength(1);
    expect(lastObservations(model)[1]).toMatchObject({ code: 'PREVIOUS_OBSERVATION_MISMATCH' });
    expect(lastObservations(model)[1]?.message).toContain('"call-1"');
  });

  it('rejects a stale previous_observation when nothing is pending', async () => {
    const { model, adapterCalls } = await diagnose(
      [
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        toolRound([
          {
            id: 'call-2',
            name: 'lookup_knowledge',
            input: envelope(KNOWLEDGE_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
          },
        ]),
        final(),
      ],
      { handlers: { query_logs: () => ({ status: 'EMPTY' }) } },
    );
    expect(adapterCalls).toHaveLength(1);
    expect(lastObservations(model)[1]).toMatchObject({
      evidence_status: 'REJECTED',
      code: 'PREVIOUS_OBSERVATION_MISMATCH',
    });
  });

  it('gives ERROR with the stable code and no detail, and does not retry, when the adapter returns an error', async () => {
    const { model, adapterCalls, audit } = await diagnose(
      [toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]), final()],
      {
        handlers: {
          query_logs: () => ({
            status: 'ERROR',
            code: 'THROTTLED',
            detail: 'ThrottlingException at host db.internal:3306',
          }),
        },
      },
    );
    expect(adapterCalls).toHaveLength(1);
    const [observation] = lastObservations(model);
    expect(observation).toMatchObject({ tool_call_id: 'call-1', evidence_status: 'ERROR', code: 'THROTTLED' });
    expect(JSON.stringify(observation)).not.toContain('db.internal');
    expect(audit.tools[0]).toMatchObject({
      status: 'ERROR',
      code: 'THROTTLED',
      errorDetail: expect.stringContaining('db.internal'),
    });
  });

  it('maps an unknown adapter code to INTERNAL', async () => {
    const { model } = await diagnose(
      [toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]), final()],
      { handlers: { query_logs: () => ({ status: 'ERROR', code: 'ECONNRESET mysql://root:pw@db' }) } },
    );
    const [observation] = lastObservations(model);
    expect(observation).toMatchObject({ evidence_status: 'ERROR', code: 'INTERNAL' });
    expect(JSON.stringify(observation)).not.toContain('root:pw');
  });

  it('turns a throwing adapter into ERROR INTERNAL without the exception text anywhere', async () => {
    const { model, audit, outcome } = await diagnose(
      [
        toolRound([
          {
            id: 'call-1',
            name: 'query_mysql',
            input: envelope({ query_name: 'payment_channel_config', params: { channel: 'alipay' } }),
          },
        ]),
        final(),
      ],
      {
        handlers: {
          query_mysql: () => {
            throw new Error('Access denied for user root@10.0.0.5 using password: YES');
          },
        },
      },
    );
    expect(outcome.ok).toBe(true);
    expect(lastObservations(model)[0]).toMatchObject({ evidence_status: 'ERROR', code: 'INTERNAL' });
    expect(JSON.stringify(model.doGenerateCalls)).not.toContain('Access denied');
    expect(JSON.stringify(audit.tools)).not.toContain('Access denied');
  });

  it('bounds a 1 MB adapter payload to an observation of at most 8 KiB and keeps the (masked) raw data for the audit', async () => {
    const huge = {
      hits: Array.from({ length: 50 }, (_, index) => ({
        ...knowledgeHit().hits[0],
        doc_id: `rb-${index}`,
        snippet: '连接池'.repeat(7_000),
        secret_field: 'x'.repeat(100),
      })),
    };
    const { model, audit } = await diagnose(
      [toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]), final(['call-1'])],
      { handlers: { lookup_knowledge: () => ({ status: 'OK', data: huge }) } },
    );
    expect(JSON.stringify(huge).length).toBeGreaterThan(1_000_000);
    const [observation] = lastObservations(model);
    expect(Buffer.byteLength(JSON.stringify(observation))).toBeLessThanOrEqual(MAX_OBSERVATION_BYTES);
    const hits = (observation?.data as { hits: Record<string, unknown>[] } | undefined)?.hits ?? [];
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.length).toBeLessThanOrEqual(5);
    expect(hits.every((hit) => (hit.snippet as string).length <= 600 && !('secret_field' in hit))).toBe(true);
    // The audit keeps what the projection dropped (all 50 hits, the extra field), masked like the observation.
    const kept = audit.tools[0]?.result as typeof huge;
    expect(kept.hits.map((hit) => [hit.doc_id, hit.secret_field])).toEqual(
      huge.hits.map((hit) => [hit.doc_id, hit.secret_field]),
    );
  });

  it('projects logs and MySQL results through their whitelists', async () => {
    const lines = Array.from({ length: 30 }, (_, index) => ({
      timestamp: `2026-11-30T14:${String(index).padStart(2, '0')}:00+08:00`,
      level: 'ERROR',
      service: 'order-service',
      message: `timeout ${index} ${'x'.repeat(PROJECTION_LIMITS.logMessageChars)}`,
      host_ip: '10.1.2.3',
    }));
    const rows = Array.from({ length: 25 }, (_, index) =>
      Array.from({ length: 14 }, (_c, column) => `${index}-${column}`),
    );
    const { model } = await diagnose(
      [
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        toolRound([
          {
            id: 'call-2',
            name: 'query_mysql',
            input: envelope(
              { query_name: 'payment_channel_config', params: { channel: 'alipay' } },
              { tool_call_id: 'call-1', evaluation: 'GAINED' },
            ),
          },
        ]),
        final(['call-1']),
      ],
      {
        handlers: {
          query_logs: () => ({ status: 'OK', data: { matched: 30, lines } }),
          query_mysql: () => ({
            status: 'OK',
            data: { columns: Array.from({ length: 14 }, (_, index) => `c${index}`), rows, truncated: false },
          }),
        },
      },
    );
    const [logs, mysql] = observationsRead(model);
    // The model reads log lines as a table (issue 25): the whitelisted columns only, each message bounded.
    const logData = logs?.data as {
      matched: number;
      message_prefix?: string;
      message_suffix?: string;
      columns: string[];
      rows: unknown[][];
    };
    expect(logData.matched).toBe(30);
    expect(
      logData.columns.every((column) =>
        ['time', 'timestamp', 'level', 'service', 'message', 'trace_id'].includes(column),
      ),
    ).toBe(true);
    expect(logData.rows.length).toBeLessThanOrEqual(20);
    const message = logData.columns.indexOf('message');
    expect(message).toBeGreaterThanOrEqual(0);
    // NOTE: each message whole is the parts the lines share (said once) around its own cell.
    const whole = (row: unknown[]) =>
      `${logData.message_prefix ?? ''}${String(row[message])}${logData.message_suffix ?? ''}`;
    expect(
      logData.rows.every(
        (row) => row.length === logData.columns.length && whole(row).length === PROJECTION_LIMITS.logMessageChars,
      ),
    ).toBe(true);
    expect(JSON.stringify(logData)).not.toContain('10.1.2.3');
    const mysqlData = mysql?.data as { columns: string[]; rows: unknown[][]; truncated: boolean };
    expect(mysqlData.columns).toHaveLength(12);
    expect(mysqlData.rows.length).toBeLessThanOrEqual(20);
    expect(mysqlData.rows.every((row) => row.length === 12)).toBe(true);
    expect(mysqlData.truncated).toBe(true);
    for (const observation of [logs, mysql]) {
      expect(Buffer.byteLength(JSON.stringify(observation))).toBeLessThanOrEqual(MAX_OBSERVATION_BYTES);
    }
  });

  it('treats an OK result without items as EMPTY with nothing to evaluate', async () => {
    const { model, outcome } = await diagnose(
      [toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]), final()],
      { handlers: { query_logs: () => ({ status: 'OK', data: { matched: 0, lines: [] } }) } },
    );
    expect(lastObservations(model)[0]).toMatchObject({ evidence_status: 'EMPTY' });
    expect(lastObservations(model)[0]).not.toHaveProperty('requires_evaluation');
    expect(outcome.ok && outcome.result.progress.checks[0]).toMatchObject({
      status: 'READY',
      empty: true,
      evaluation: null,
    });
  });

  it('reports data of the wrong shape from an adapter as ERROR INTERNAL', async () => {
    const { model } = await diagnose(
      [toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]), final()],
      { handlers: { query_logs: () => ({ status: 'OK', data: { rows: 'not logs' } }) } },
    );
    expect(lastObservations(model)[0]).toMatchObject({ evidence_status: 'ERROR', code: 'INTERNAL' });
  });

  it('neither authorizes nor emulates an unknown tool and leaves no canonical record', async () => {
    const { outcome, model, adapterCalls, audit } = await diagnose([
      toolRound([{ id: 'call-1', name: 'run_shell', input: { input: { command: 'cat /etc/passwd' } } }]),
      final(),
    ]);
    expect(outcome.ok).toBe(true);
    expect(adapterCalls).toHaveLength(0);
    expect(audit.tools).toHaveLength(0);
    expect(outcome.ok && outcome.result.progress).toMatchObject({ toolCalls: 0, checks: [] });
    expect(audit.steps[0]?.toolCalls).toEqual([{ toolCallId: 'call-1', toolName: 'run_shell' }]);
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  it.each([
    ['a missing envelope', { query: '订单' }, ['input']],
    ['an extra envelope key', { input: KNOWLEDGE_INPUT, enterprise_id: 'E2002' }, ['enterprise_id']],
    ['an extra business key', { input: { ...KNOWLEDGE_INPUT, enterprise_id: 'E2002' } }, ['input.enterprise_id']],
    ['top_k out of range', { input: { ...KNOWLEDGE_INPUT, top_k: 9 } }, ['input.top_k']],
    ['an empty query', { input: { query: '' } }, ['input.query']],
    [
      'a bad evaluation',
      { previous_observation: { tool_call_id: 'x', evaluation: 'MAYBE' }, input: KNOWLEDGE_INPUT },
      ['previous_observation.evaluation'],
    ],
  ])('rejects %s with INVALID_INPUT and the field paths', async (_label, input, paths) => {
    const { model, adapterCalls, audit } = await diagnose([
      toolRound([{ id: 'call-1', name: 'lookup_knowledge', input }]),
      final(),
    ]);
    expect(adapterCalls).toHaveLength(0);
    const [observation] = lastObservations(model);
    expect(observation).toMatchObject({ evidence_status: 'REJECTED', code: 'INVALID_INPUT' });
    for (const path of paths) expect(observation?.message).toContain(path);
    expect(audit.tools[0]).toMatchObject({ disposition: 'REJECTED', code: 'INVALID_INPUT', input });
  });

  it.each([
    ['end before start', { ...LOGS_INPUT, end_time: '2026-11-30T13:00:00+08:00' }],
    ['a window over 24 h', { ...LOGS_INPUT, end_time: '2026-12-01T14:00:01+08:00' }],
    ['a time without offset', { ...LOGS_INPUT, start_time: '2026-11-30T14:00:00' }],
    ['an unknown level', { ...LOGS_INPUT, level: 'FATAL' }],
    ['a limit over 50', { ...LOGS_INPUT, limit: 51 }],
    ['a keyword over 200 characters', { ...LOGS_INPUT, keyword: 'k'.repeat(201) }],
  ])('rejects query_logs input with %s', async (_label, input) => {
    const { model, adapterCalls } = await diagnose([
      toolRound([{ id: 'call-1', name: 'query_logs', input: { input } }]),
      final(),
    ]);
    expect(adapterCalls).toHaveLength(0);
    expect(lastObservations(model)[0]).toMatchObject({ evidence_status: 'REJECTED', code: 'INVALID_INPUT' });
  });

  it.each([
    ['an unknown query name', { query_name: 'drop_everything', params: {} }, 'input.query_name'],
    ['a missing parameter', { query_name: 'payment_channel_config', params: {} }, 'input.params.channel'],
    [
      'an undeclared parameter',
      { query_name: 'payment_channel_config', params: { channel: 'a', enterprise_id: 'E2002' } },
      'input.params.enterprise_id',
    ],
    [
      'a string over max_length',
      { query_name: 'payment_channel_config', params: { channel: 'c'.repeat(33) } },
      'input.params.channel',
    ],
    [
      'an integer out of range',
      { query_name: 'recent_failed_orders', params: { since: '2026-11-30T14:00:00+08:00', limit: 500 } },
      'input.params.limit',
    ],
    [
      'a non-integer',
      { query_name: 'recent_failed_orders', params: { since: '2026-11-30T14:00:00+08:00', limit: 1.5 } },
      'input.params.limit',
    ],
    [
      'a bad datetime',
      { query_name: 'recent_failed_orders', params: { since: 'yesterday', limit: 5 } },
      'input.params.since',
    ],
  ])('rejects query_mysql input with %s against the catalog', async (_label, input, path) => {
    const { model, adapterCalls } = await diagnose([
      toolRound([{ id: 'call-1', name: 'query_mysql', input: { input } }]),
      final(),
    ]);
    expect(adapterCalls).toHaveLength(0);
    expect(lastObservations(model)[0]).toMatchObject({ code: 'INVALID_INPUT' });
    expect(lastObservations(model)[0]?.message).toContain(path);
  });

  it('rejects tool arguments that are not JSON with INVALID_INPUT instead of SDK error text', async () => {
    const { model, adapterCalls, audit } = await diagnose([
      toolRound([{ id: 'call-1', name: 'query_logs', input: '{"input": {"service": "order' }]),
      final(),
    ]);
    expect(adapterCalls).toHaveLength(0);
    expect(lastObservations(model)[0]).toMatchObject({
      tool_call_id: 'call-1',
      evidence_status: 'REJECTED',
      code: 'INVALID_INPUT',
    });
    expect(audit.tools[0]).toMatchObject({ disposition: 'REJECTED', code: 'INVALID_INPUT' });
  });

  it('bounds the list of invalid field paths', async () => {
    const { model } = await diagnose([
      toolRound([
        {
          id: 'call-1',
          name: 'query_logs',
          input: {
            input: {
              service: 1,
              start_time: 2,
              end_time: 3,
              keyword: 4,
              level: 5,
              trace_id: 6,
              limit: 'x',
              a: 1,
              b: 2,
            },
          },
        },
      ]),
      final(),
    ]);
    const message = lastObservations(model)[0]?.message as string;
    expect(message.split('问题字段：')[1]?.split(', ')).toHaveLength(5);
  });

  it('refuses an equivalent repeat of an executed call as DUPLICATE_CALL, whatever the key order', async () => {
    const { model, adapterCalls, audit } = await diagnose(
      [
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        toolRound([
          {
            id: 'call-2',
            name: 'query_logs',
            input: { input: Object.fromEntries(Object.entries(LOGS_INPUT).reverse()) },
          },
        ]),
        final(),
      ],
      { handlers: { query_logs: () => ({ status: 'EMPTY' }) } },
    );
    expect(adapterCalls).toHaveLength(1);
    expect(lastObservations(model)[1]).toMatchObject({
      tool_call_id: 'call-2',
      evidence_status: 'REJECTED',
      code: 'DUPLICATE_CALL',
    });
    expect(audit.tools.map((tool) => tool.disposition)).toEqual(['EXECUTED', 'REJECTED']);
  });

  it('refuses a reused tool call id as DUPLICATE_TOOL_CALL_ID', async () => {
    const { model, adapterCalls } = await diagnose(
      [
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
        final(),
      ],
      { handlers: { query_logs: () => ({ status: 'EMPTY' }) } },
    );
    expect(adapterCalls).toHaveLength(1);
    expect(lastObservations(model)[1]).toMatchObject({ evidence_status: 'REJECTED', code: 'DUPLICATE_TOOL_CALL_ID' });
  });

  it('executes parallel calls of one round in emitted order and holds the second until the first is evaluated', async () => {
    const { model, adapterCalls } = await diagnose([
      toolRound([
        { id: 'call-a', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) },
        { id: 'call-b', name: 'query_logs', input: envelope(LOGS_INPUT) },
      ]),
      final(['call-a']),
    ]);
    expect(adapterCalls.map((call) => call.toolCallId)).toEqual(['call-a']);
    expect(
      lastObservations(model).map((observation) => [observation.tool_call_id, observation.evidence_status]),
    ).toEqual([
      ['call-a', 'OK'],
      ['call-b', 'REJECTED'],
    ]);
    expect(lastObservations(model)[1]?.message).toContain('"call-a"');
  });

  it('executes all parallel calls in order when none leaves a pending result', async () => {
    const order: string[] = [];
    const { adapterCalls } = await diagnose(
      [
        toolRound([
          { id: 'call-a', name: 'query_logs', input: envelope(LOGS_INPUT) },
          { id: 'call-b', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) },
        ]),
        final(),
      ],
      {
        handlers: {
          query_logs: async () => {
            await new Promise((resolve) => setImmediate(resolve));
            order.push('logs done');
            return { status: 'EMPTY' };
          },
          lookup_knowledge: () => {
            order.push('knowledge started');
            return { status: 'EMPTY' };
          },
        },
      },
    );
    expect(adapterCalls.map((call) => call.toolCallId)).toEqual(['call-a', 'call-b']);
    expect(order).toEqual(['logs done', 'knowledge started']);
  });
});
