import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../../packages/core/src/tools/evidence-adapter.ts';
import { toModelObservation, withSharedMessageParts } from '../../../../packages/core/src/tools/model-observation.ts';
import type { Observation } from '../../../../packages/core/src/tools/observation.ts';

const logs = (lines: LogLine[]): Observation => ({
  tool_call_id: 'call-1',
  evidence_status: 'OK',
  data: { matched: lines.length, lines },
  requires_evaluation: true,
});
const line = (timestamp: string, service = 'payment-gateway', trace?: string, level = 'WARN'): LogLine => ({
  timestamp,
  level,
  service,
  message: `pool stats at ${timestamp}`,
  ...(trace === undefined ? {} : { trace_id: trace }),
});

interface Table {
  service?: string;
  level?: string;
  date?: string;
  offset?: string;
  message?: string;
  message_prefix?: string;
  message_suffix?: string;
  columns: string[];
  rows: unknown[][];
}

/** The audited lines back from the table: the compact form loses nothing. */
function linesOf(value: Record<string, unknown>): Record<string, unknown>[] {
  const data = value.data as Table;
  return data.rows.map((row) => {
    const entry: Record<string, unknown> = {
      ...(data.level === undefined ? {} : { level: data.level }),
      ...(data.service === undefined ? {} : { service: data.service }),
      ...(data.message === undefined ? {} : { message: data.message }),
    };
    data.columns.forEach((column, index) => {
      if (column === 'time') entry.timestamp = `${data.date}T${String(row[index])}${data.offset ?? ''}`;
      else if (column === 'message')
        entry.message = `${data.message_prefix ?? ''}${String(row[index])}${data.message_suffix ?? ''}`;
      else if (row[index] !== null) entry[column] = row[index];
    });
    return entry;
  });
}

describe('toModelObservation', () => {
  it('says the date, the offset, the service and the level once when every line shares them', () => {
    const lines = [line('2026-11-30T06:59:04.093Z', 'payment-gateway', 'c2'), line('2026-11-30T06:58:01.536Z')];
    const value = toModelObservation(logs(lines));
    expect(value.data).toEqual({
      matched: 2,
      service: 'payment-gateway',
      level: 'WARN',
      date: '2026-11-30',
      offset: 'Z',
      columns: ['time', 'message', 'trace_id'],
      rows: [
        ['06:59:04.093', 'pool stats at 2026-11-30T06:59:04.093Z', 'c2'],
        ['06:58:01.536', 'pool stats at 2026-11-30T06:58:01.536Z', null],
      ],
    });
    expect(linesOf(value)).toEqual(lines);
  });

  it('keeps each time its offset when the lines of one day have different offsets or none', () => {
    const mixed = [line('2026-11-30T14:59:04+08:00'), line('2026-11-30T06:58:01Z'), line('2026-11-30T06:57:00')];
    const value = toModelObservation(logs(mixed));
    expect(value.data).not.toHaveProperty('offset');
    expect((value.data as Table).rows.map((row) => row[0])).toEqual(['14:59:04+08:00', '06:58:01Z', '06:57:00']);
    expect(linesOf(value)).toEqual(mixed);
    const local = [line('2026-11-30T14:59:04+08:00'), line('2026-11-30T14:58:01+08:00')];
    expect(toModelObservation(logs(local)).data).toMatchObject({ date: '2026-11-30', offset: '+08:00' });
    expect(linesOf(toModelObservation(logs(local)))).toEqual(local);
  });

  it('says the text every message starts and ends with once, cut at spaces, when they differ in between', () => {
    const template = (order: string, waiting: number) =>
      `call payment-gateway POST /v1/pay failed: 503 upstream timeout order_id=${order} waiting=${waiting} error_code=PAYMENT_TIMEOUT`;
    const lines = [
      { ...line('2026-11-30T06:59:04.093Z'), message: template('E1001-000259', 3) },
      { ...line('2026-11-30T06:58:01.536Z'), message: template('E1001-000257', 12) },
    ];
    const value = toModelObservation(logs(lines));
    expect(value.data).toMatchObject({
      message_prefix: 'call payment-gateway POST /v1/pay failed: 503 upstream timeout ',
      message_suffix: ' error_code=PAYMENT_TIMEOUT',
      rows: [
        ['06:59:04.093', 'order_id=E1001-000259 waiting=3', null],
        ['06:58:01.536', 'order_id=E1001-000257 waiting=12', null],
      ],
    });
    expect(linesOf(value)).toEqual(lines);
  });

  it('says a message once, without its column, when every line has the same one', () => {
    const lines = [line('2026-11-30T06:59:04Z'), line('2026-11-30T06:58:01Z')].map((entry) => ({
      ...entry,
      message: 'HikariPool-1 - Connection is not available',
    }));
    const value = toModelObservation(logs(lines));
    expect(value.data).toMatchObject({
      message: 'HikariPool-1 - Connection is not available',
      columns: ['time', 'trace_id'],
      rows: [
        ['06:59:04', null],
        ['06:58:01', null],
      ],
    });
    expect(linesOf(value)).toEqual(lines);
  });

  it('keeps every message whole when what they share is short, one has no space in it, or there is one line', () => {
    const messagesOf = (texts: string[]) =>
      (
        toModelObservation(logs(texts.map((message) => ({ ...line('2026-11-30T06:59:04Z'), message })))).data as Table
      ).rows.map((row) => row[1]);
    expect(messagesOf(['pool timeout #1', 'pool timeout #2'])).toEqual(['pool timeout #1', 'pool timeout #2']);
    expect(
      messagesOf(['HikariPool-1-Connection-is-not-available-1', 'HikariPool-1-Connection-is-not-available-2']),
    ).toEqual(['HikariPool-1-Connection-is-not-available-1', 'HikariPool-1-Connection-is-not-available-2']);
    expect(messagesOf(['HikariPool-1 - Connection is not available'])).toEqual([
      'HikariPool-1 - Connection is not available',
    ]);
  });

  it('puts every message back exactly from its table, whatever the messages share', () => {
    const texts = [
      ['a b c d e f g h i j k l m n o p', 'a b c d e f g h i j k l m n o p q'],
      ['same start here, then x ', 'same start here, then '],
      ['x shared tail that is long', 'y shared tail that is long', 'z shared tail that is long'],
      ['', 'nothing shared at all here, really'],
      ['  leading spaces shared long enough  ', '  leading spaces shared long enough   '],
    ];
    for (const messages of texts) {
      const lines = messages.map((message) => ({ ...line('2026-11-30T06:59:04Z'), message }));
      expect(linesOf(toModelObservation(logs(lines)))).toEqual(lines);
    }
  });

  it('leaves a value that is not a log table with a message column as it is', () => {
    const mysql = { columns: ['status'], rows: [['FAILED'], ['FAILED']] };
    expect(withSharedMessageParts(mysql)).toBe(mysql);
    expect(withSharedMessageParts('text')).toBe('text');
    const numbers = { columns: ['message'], rows: [[1], [1]] };
    expect(withSharedMessageParts(numbers)).toBe(numbers);
  });

  it('keeps whole timestamps when the lines span two days, and the service and level columns when they differ', () => {
    const lines = [
      line('2026-12-01T00:00:01.000Z', 'order-service', undefined, 'ERROR'),
      line('2026-11-30T23:59:59.000Z'),
    ];
    const value = toModelObservation(logs(lines));
    const data = value.data as { columns: string[]; rows: unknown[][] };
    expect(data).not.toHaveProperty('date');
    expect(data).not.toHaveProperty('level');
    expect(data).not.toHaveProperty('service');
    expect(data.columns).toEqual(['timestamp', 'level', 'service', 'message', 'trace_id']);
    expect(data.rows.map((row) => row[0])).toEqual(['2026-12-01T00:00:01.000Z', '2026-11-30T23:59:59.000Z']);
    expect(data.rows.map((row) => row[1])).toEqual(['ERROR', 'WARN']);
    expect(linesOf(value).map((entry) => ({ ...entry, timestamp: undefined }))).toEqual(
      lines.map((entry) => ({ ...entry, timestamp: undefined })),
    );
  });

  it('keeps whole timestamps that are not ISO date-times', () => {
    const data = toModelObservation(logs([line('30/11/2026 06:59'), line('30/11/2026 06:58')])).data;
    expect(data).not.toHaveProperty('date');
    expect((data as { rows: unknown[][] }).rows[0]?.[0]).toBe('30/11/2026 06:59');
  });

  it('leaves observations without log lines as they are', () => {
    const empty: Observation = { tool_call_id: 'call-2', evidence_status: 'EMPTY', message: '没有匹配' };
    expect(toModelObservation(empty)).toEqual(empty);
  });
});
