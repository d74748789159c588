import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../../packages/core/src/tools/evidence-adapter.ts';
import { toModelObservation } from '../../../../packages/core/src/tools/model-observation.ts';
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

/** The audited lines back from the table: the compact form loses nothing. */
function linesOf(value: Record<string, unknown>): Record<string, unknown>[] {
  const data = value.data as { service?: string; level?: string; date?: string; columns: string[]; rows: unknown[][] };
  return data.rows.map((row) => {
    const entry: Record<string, unknown> = {
      ...(data.level === undefined ? {} : { level: data.level }),
      ...(data.service === undefined ? {} : { service: data.service }),
    };
    data.columns.forEach((column, index) => {
      if (column === 'time') entry.timestamp = `${data.date}T${String(row[index])}`;
      else if (row[index] !== null) entry[column] = row[index];
    });
    return entry;
  });
}

describe('toModelObservation', () => {
  it('says the date, the service and the level once when every line shares them, each time keeping its offset', () => {
    const lines = [line('2026-11-30T06:59:04.093Z', 'payment-gateway', 'c2'), line('2026-11-30T06:58:01.536Z')];
    const value = toModelObservation(logs(lines));
    expect(value.data).toEqual({
      matched: 2,
      service: 'payment-gateway',
      level: 'WARN',
      date: '2026-11-30',
      columns: ['time', 'message', 'trace_id'],
      rows: [
        ['06:59:04.093Z', 'pool stats at 2026-11-30T06:59:04.093Z', 'c2'],
        ['06:58:01.536Z', 'pool stats at 2026-11-30T06:58:01.536Z', null],
      ],
    });
    expect(linesOf(value)).toEqual(lines);
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
