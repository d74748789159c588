/**
 * The incident window at the tool boundary (issue 21): a run with a window refuses any `query_logs` window and any
 * catalog query's time parameters that do not overlap it, with the stable OUTSIDE_INCIDENT_WINDOW observation naming
 * the allowed window, before any adapter runs; a run without a window behaves as before.
 */
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { FAKE_CATALOG } from '../../../support/fake-evidence.ts';
import { envelope, noConclusionDraft } from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound } from '../../../support/scripted-model.ts';

/** 2026-11-30 13:35–14:10 in Shanghai. */
const WINDOW = { from: '2026-11-30T05:35:00.000Z', to: '2026-11-30T06:10:00.000Z' };
const logs = (start: string, end: string) => ({ service: 'order-service', start_time: start, end_time: end });
const mysql = (since: string) => ({ query_name: 'recent_failed_orders', params: { since, limit: 10 } });
const final = textRound(JSON.stringify(noConclusionDraft()));

async function observe(call: { name: string; input: unknown }, window: typeof WINDOW | null = WINDOW) {
  const result = await diagnose([toolRound([{ id: 'call-1', ...call }]), final], {
    run: window === null ? {} : { window },
  });
  const [observation] = observationsIn(result.model.doGenerateCalls.at(-1)?.prompt ?? []);
  return { ...result, observation };
}

describe('the tool boundary with an incident window', () => {
  it('refuses yesterday’s logs with OUTSIDE_INCIDENT_WINDOW naming the allowed window, and runs no adapter', async () => {
    const { observation, adapterCalls, audit } = await observe({
      name: 'query_logs',
      input: envelope(logs('2026-11-29T14:00:00+08:00', '2026-11-29T15:00:00+08:00')),
    });
    expect(observation).toEqual({
      tool_call_id: 'call-1',
      ref: 1,
      evidence_status: 'REJECTED',
      code: 'OUTSIDE_INCIDENT_WINDOW',
      message:
        '工具未执行：查询的时间范围与本次事件的时间窗不重叠。允许的时间窗：2026-11-30T13:35:00+08:00 至 2026-11-30T14:10:00+08:00。请在此时间窗内重新查询。',
    });
    expect(adapterCalls).toHaveLength(0);
    expect(audit.tools[0]).toMatchObject({ disposition: 'REJECTED', code: 'OUTSIDE_INCIDENT_WINDOW' });
  });

  it('runs a logs query that starts before the window with its start clamped to the window (issue 32)', async () => {
    const { observation, adapterCalls, audit } = await observe({
      name: 'query_logs',
      input: envelope(logs('2026-11-30T13:00:00+08:00', '2026-11-30T13:50:00+08:00')),
    });
    expect(observation?.evidence_status).not.toBe('REJECTED');
    expect(adapterCalls.map((call) => call.input)).toEqual([
      logs('2026-11-30T13:35:00+08:00', '2026-11-30T13:50:00+08:00'),
    ]);
    // The audit keeps what the model asked for.
    expect(audit.tools[0]?.input).toMatchObject({
      input: logs('2026-11-30T13:00:00+08:00', '2026-11-30T13:50:00+08:00'),
    });
  });

  it('clamps a 24-hour logs query to the window instead of reading the day around it (issue 32)', async () => {
    const { adapterCalls } = await observe({
      name: 'query_logs',
      input: envelope(logs('2026-11-30T00:00:00+08:00', '2026-12-01T00:00:00+08:00')),
    });
    expect(adapterCalls.map((call) => call.input)).toEqual([
      logs('2026-11-30T13:35:00+08:00', '2026-11-30T14:10:00+08:00'),
    ]);
  });

  it('refuses a logs query that only touches the window’s opening instant: nothing of it lies inside', async () => {
    const { observation, adapterCalls } = await observe({
      name: 'query_logs',
      input: envelope(logs('2026-11-30T13:00:00+08:00', '2026-11-30T13:35:00+08:00')),
    });
    expect(observation?.code).toBe('OUTSIDE_INCIDENT_WINDOW');
    expect(adapterCalls).toHaveLength(0);
  });

  it('clamps a logs window to whole seconds inside a window whose ends carry milliseconds', async () => {
    const { adapterCalls } = await diagnose(
      [
        toolRound([
          {
            id: 'call-1',
            name: 'query_logs',
            input: envelope(logs('2026-11-30T13:00:00+08:00', '2026-11-30T15:00:00+08:00')),
          },
        ]),
        final,
      ],
      { run: { window: { from: '2026-11-30T05:35:00.402Z', to: '2026-11-30T06:10:00.900Z' } } },
    );
    expect(adapterCalls.map((call) => call.input)).toEqual([
      logs('2026-11-30T13:35:01+08:00', '2026-11-30T14:10:00+08:00'),
    ]);
  });

  it('refuses a logs query that ends a millisecond before the window opens', async () => {
    const { observation } = await observe({
      name: 'query_logs',
      input: envelope(logs('2026-11-30T13:00:00+08:00', '2026-11-30T13:34:59.999+08:00')),
    });
    expect(observation?.code).toBe('OUTSIDE_INCIDENT_WINDOW');
  });

  it('refuses a catalog query whose datetime parameter lies outside the window', async () => {
    const { observation, adapterCalls } = await observe({
      name: 'query_mysql',
      input: envelope(mysql('2026-11-29T13:30:00+08:00')),
    });
    expect(observation?.code).toBe('OUTSIDE_INCIDENT_WINDOW');
    expect(adapterCalls).toHaveLength(0);
  });

  it('clamps each datetime parameter of a catalog query that overlaps the window into it (issue 32)', async () => {
    const catalog = [
      ...FAKE_CATALOG,
      {
        name: 'order_status_summary',
        description: '时间窗内订单汇总',
        params: {
          since: { type: 'datetime' as const, description: '窗口开始' },
          until: { type: 'datetime' as const, description: '窗口结束' },
        },
      },
    ];
    const input = {
      query_name: 'order_status_summary',
      params: { since: '2026-11-29T14:00:00+08:00', until: '2026-11-30T14:00:00+08:00' },
    };
    const { adapterCalls } = await diagnose(
      [toolRound([{ id: 'call-1', name: 'query_mysql', input: envelope(input) }]), final],
      { run: { window: WINDOW }, catalog },
    );
    expect(adapterCalls.map((call) => call.input)).toEqual([
      {
        query_name: 'order_status_summary',
        params: { since: '2026-11-30T13:35:00+08:00', until: '2026-11-30T14:00:00+08:00' },
      },
    ]);
  });

  it('runs a catalog query whose datetime parameter lies inside the window', async () => {
    const { adapterCalls } = await observe({
      name: 'query_mysql',
      input: envelope(mysql('2026-11-30T13:40:00+08:00')),
    });
    expect(adapterCalls).toHaveLength(1);
  });

  it('behaves as before without a window: yesterday’s logs are queried', async () => {
    const { adapterCalls, observation } = await observe(
      { name: 'query_logs', input: envelope(logs('2026-11-29T14:00:00+08:00', '2026-11-29T15:00:00+08:00')) },
      null,
    );
    expect(adapterCalls).toHaveLength(1);
    expect(observation?.evidence_status).not.toBe('REJECTED');
  });

  it('tells the model the window beside now, in the run’s time zone, and only when the run has one', async () => {
    const withWindow = await observe({ name: 'lookup_knowledge', input: envelope({ query: '连接池' }) });
    const userText = (model: typeof withWindow.model) => {
      const part = model.doGenerateCalls[0]?.prompt.find((message) => message.role === 'user')?.content[0];
      return JSON.parse(part !== undefined && 'text' in part ? part.text : '{}') as Record<string, unknown>;
    };
    expect(userText(withWindow.model).incident_window).toMatchObject({
      from: '2026-11-30T13:35:00+08:00',
      to: '2026-11-30T14:10:00+08:00',
    });
    const without = await observe({ name: 'lookup_knowledge', input: envelope({ query: '连接池' }) }, null);
    expect(Object.keys(userText(without.model))).toEqual(['query', 'now', 'timezone', 'previous_turn']);
  });
});
