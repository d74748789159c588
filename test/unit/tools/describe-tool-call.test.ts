import { describe, expect, it } from 'vitest';
import { describeToolCall, MAX_DESCRIPTION_CHARS } from '../../../packages/core/src/tools/describe-tool-call.ts';
import {
  emptyObservation,
  errorObservation,
  okObservation,
  rejectedObservation,
  stopRequiredObservation,
} from '../../../packages/core/src/tools/observation.ts';

const logsInput = {
  previous_observation: { tool_call_id: 'call_1', evaluation: 'GAINED' },
  input: {
    service: 'payment-gateway',
    start_time: '2026-11-30T14:00:00+08:00',
    end_time: '2026-11-30T15:00:00+08:00',
    keyword: 'HikariPool',
    limit: 10,
  },
};

describe('describeToolCall', () => {
  it('says which service, window and keyword query_logs asked for and how many lines matched', () => {
    const observation = okObservation('call_2', { matched: 67, lines: [] });
    expect(describeToolCall('query_logs', logsInput, observation)).toBe(
      'query_logs payment-gateway 14:00–15:00 kw=HikariPool → 67 matches',
    );
  });

  it('names the dates of a query_logs window that crosses midnight, and its level', () => {
    const input = {
      input: {
        service: 'order-service',
        start_time: '2026-11-30T23:30:00Z',
        end_time: '2026-12-01T00:30:00Z',
        level: 'ERROR',
      },
    };
    expect(describeToolCall('query_logs', input, okObservation('c', { matched: 1, lines: [] }))).toBe(
      'query_logs order-service 2026-11-30 23:30–2026-12-01 00:30 level=ERROR → 1 match',
    );
  });

  it('quotes the lookup_knowledge query with its service and counts the hits', () => {
    const input = { input: { query: '订单失败 支付超时 排查', service: 'order-service', top_k: 3 } };
    const hit = { doc_id: 'd', title: 't', snippet: 's', score: 1 };
    expect(describeToolCall('lookup_knowledge', input, okObservation('c', { hits: [hit, hit, hit] }))).toBe(
      'lookup_knowledge "订单失败 支付超时 排查" svc=order-service top=3 → 3 hits',
    );
  });

  it('names the query_mysql catalog entry and its parameters and counts the rows, saying when more matched', () => {
    const input = { input: { query_name: 'failed_orders_by_minute', params: { since: '2026-11-30T14:00:00+08:00' } } };
    const data = { columns: ['minute', 'count'], rows: [[1, 2]], truncated: true };
    expect(describeToolCall('query_mysql', input, okObservation('c', data))).toBe(
      'query_mysql failed_orders_by_minute(since=2026-11-30T14:00:00+08:00) → 1 row (more matched)',
    );
  });

  it.each([
    ['an empty result', emptyObservation('c'), 'no match'],
    ['an evidence error', errorObservation('c', 'NOT_CONFIGURED'), 'ERROR NOT_CONFIGURED'],
    ['a refusal', rejectedObservation('c', 'DUPLICATE_CALL'), 'refused DUPLICATE_CALL'],
    ['the stop', stopRequiredObservation('c'), 'STOP_REQUIRED (collection is over)'],
    ['no observation', null, 'no observation'],
  ])('says what came back for %s', (_label, observation, outcome) => {
    expect(describeToolCall('query_logs', logsInput, observation)).toBe(
      `query_logs payment-gateway 14:00–15:00 kw=HikariPool → ${outcome}`,
    );
  });

  it('says the input was invalid when the envelope has no input, and names an unknown tool as sent', () => {
    expect(describeToolCall('query_logs', { nonsense: 1 }, rejectedObservation('c', 'INVALID_INPUT'))).toBe(
      'query_logs (invalid input) → refused INVALID_INPUT',
    );
    expect(
      describeToolCall('read_file', { input: { path: '/etc/passwd' } }, rejectedObservation('c', 'UNKNOWN_TOOL')),
    ).toBe('read_file → refused UNKNOWN_TOOL');
  });

  it('never passes a terminal escape, a line break or a bidirectional override through', () => {
    const input = {
      input: { service: 'a\u001b[2J\u001b]0;owned\u0007b', start_time: 'x', end_time: 'y', keyword: 'k\nl\u202em' },
    };
    const line = describeToolCall('query_logs', input, emptyObservation('c'));
    expect(line).not.toMatch(/[\p{Cc}\u202e]/u);
    expect(line).toContain('kw=k l\uFFFDm');
    expect(describeToolCall('query_logs\r\u001b[1A', null, null)).not.toMatch(/\p{Cc}/u);
  });

  it('stays bounded whatever the model sent, and never shows the evidence text itself', () => {
    const long = 'x'.repeat(10_000);
    const input = {
      input: { query_name: long, params: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}`, long])) },
    };
    const observation = okObservation('c', { columns: ['secret'], rows: [['SECRET-ROW-VALUE']], truncated: false });
    const line = describeToolCall('query_mysql', input, observation);
    expect(line.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
    expect(line).not.toContain('SECRET-ROW-VALUE');
    expect(describeToolCall(long, null, null).length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS);
  });
});
