import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogsData, LogsInput } from '@diagnosis/core';
import { createLocalLogsAdapter } from '@diagnosis/core/adapters';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.ts';
import { examplePath, toolCall } from '../support/tool-call.ts';

const adapter = createLocalLogsAdapter({ directory: examplePath('logs') });
const INCIDENT_HOUR = { start_time: '2026-11-30T14:00:00+08:00', end_time: '2026-11-30T15:00:00+08:00' };
const query = (input: Partial<LogsInput>, enterpriseId = 'E1001') =>
  adapter.execute(toolCall('query_logs', { service: 'payment-gateway', ...INCIDENT_HOUR, ...input }, { enterpriseId }));
const dataOf = (result: Awaited<ReturnType<typeof query>>) =>
  (result.status === 'OK' ? result.data : undefined) as LogsData;

describe('createLocalLogsAdapter on the example world', () => {
  it('returns the tenant’s matching lines newest first with the total matched', async () => {
    const data = dataOf(await query({ level: 'ERROR', limit: 5 }));
    expect(data.lines).toHaveLength(5);
    expect(data.matched).toBeGreaterThan(5);
    const times = data.lines.map((line) => Date.parse(line.timestamp));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(data.lines.every((line) => line.level === 'ERROR' && line.service === 'payment-gateway')).toBe(true);
    expect(data.lines[0]?.message).toContain('HikariPool-1 - Connection is not available');
  });

  it('keeps to the time window, both ends included', async () => {
    const data = dataOf(await query({ level: 'ERROR', limit: 50 }));
    const start = Date.parse(INCIDENT_HOUR.start_time);
    const end = Date.parse(INCIDENT_HOUR.end_time);
    expect(data.lines.every((line) => Date.parse(line.timestamp) >= start && Date.parse(line.timestamp) <= end)).toBe(
      true,
    );
    expect(
      dataOf(
        await query({ start_time: '2026-11-30T13:00:00+08:00', end_time: '2026-11-30T14:04:00+08:00', level: 'ERROR' }),
      ),
    ).toBeUndefined();
  });

  it('matches the keyword as a case-insensitive substring', async () => {
    const upper = dataOf(await query({ keyword: 'HIKARIPOOL-1 - POOL STATS' }));
    const lower = dataOf(await query({ keyword: 'hikaripool-1 - pool stats' }));
    expect(upper.matched).toBeGreaterThan(0);
    expect(upper.matched).toBe(lower.matched);
    expect(upper.lines.every((line) => line.level === 'WARN')).toBe(true);
  });

  it('filters on the trace id', async () => {
    const [first] = dataOf(await query({ level: 'ERROR', limit: 1 })).lines;
    const trace = first?.trace_id ?? '';
    const data = dataOf(
      await adapter.execute(toolCall('query_logs', { service: 'order-service', ...INCIDENT_HOUR, trace_id: trace })),
    );
    expect(data.lines.length).toBeGreaterThan(0);
    expect(data.lines.every((line) => line.trace_id === trace)).toBe(true);
  });

  it('answers EMPTY when nothing matches', async () => {
    expect(await query({ keyword: 'no such words anywhere' })).toEqual({ status: 'EMPTY' });
  });

  describe('tenant scope comes from the run', () => {
    it('never shows E2002’s redis pool noise to E1001, although E2002 has it', async () => {
      const e1001 = await adapter.execute(
        toolCall('query_logs', { service: 'order-service', ...INCIDENT_HOUR, keyword: 'redis pool' }),
      );
      const e2002 = await adapter.execute(
        toolCall(
          'query_logs',
          {
            service: 'order-service',
            start_time: '2026-11-30T00:00:00+08:00',
            end_time: '2026-11-30T23:59:59+08:00',
            keyword: 'redis pool',
          },
          { enterpriseId: 'E2002' },
        ),
      );
      expect(e1001).toEqual({ status: 'EMPTY' });
      expect(dataOf(e2002).matched).toBeGreaterThan(0);
    });

    it('ignores another enterprise id written into the keyword', async () => {
      const result = await adapter.execute(
        toolCall('query_logs', { service: 'order-service', ...INCIDENT_HOUR, keyword: 'E2002-' }),
      );
      expect(result).toEqual({ status: 'EMPTY' });
    });

    it('ignores another tenant’s trace id', async () => {
      const e2002 = dataOf(
        await adapter.execute(
          toolCall('query_logs', { service: 'order-service', ...INCIDENT_HOUR, limit: 1 }, { enterpriseId: 'E2002' }),
        ),
      );
      const trace = e2002.lines.find((line) => line.trace_id !== undefined)?.trace_id ?? 'missing';
      expect(
        await adapter.execute(toolCall('query_logs', { service: 'order-service', ...INCIDENT_HOUR, trace_id: trace })),
      ).toEqual({
        status: 'EMPTY',
      });
    });

    it('returns nothing for a service name that smuggles a tenant', async () => {
      expect(await query({ service: 'payment-gateway","enterprise_id":"E2002' })).toEqual({ status: 'EMPTY' });
    });
  });

  it('answers NOT_CONFIGURED for a missing folder and TIMEOUT when aborted', async () => {
    const missing = createLocalLogsAdapter({ directory: '/nonexistent/logs' });
    expect(await missing.execute(toolCall('query_logs', { service: 's', ...INCIDENT_HOUR }))).toMatchObject({
      code: 'NOT_CONFIGURED',
    });
    const controller = new AbortController();
    controller.abort();
    expect(
      await adapter.execute(
        toolCall('query_logs', { service: 'payment-gateway', ...INCIDENT_HOUR }, { signal: controller.signal }),
      ),
    ).toMatchObject({
      status: 'ERROR',
      code: 'TIMEOUT',
    });
  });

  it('skips malformed lines and lines without the fields it needs', async () => {
    const directory = await tempDir('logs-');
    const good = {
      timestamp: '2026-11-30T06:10:00Z',
      level: 'ERROR',
      service: 'svc',
      enterprise_id: 'E1001',
      message: 'boom',
    };
    await writeFile(
      join(directory, 'svc.jsonl'),
      [
        '{not json',
        JSON.stringify({ ...good, message: 42 }),
        JSON.stringify(good),
        '',
        JSON.stringify({ ...good, timestamp: 'yesterday' }),
      ].join('\n'),
    );
    const result = await createLocalLogsAdapter({ directory }).execute(
      toolCall('query_logs', { service: 'svc', ...INCIDENT_HOUR }),
    );
    expect(result).toEqual({
      status: 'OK',
      data: { matched: 1, lines: [{ timestamp: good.timestamp, level: 'ERROR', service: 'svc', message: 'boom' }] },
    });
  });

  it('counts every matching line of a file read in many chunks, lines straddling the chunk boundaries included', async () => {
    const directory = await tempDir('logs-');
    const lines = Array.from({ length: 600 }, (_, index) =>
      JSON.stringify({
        timestamp: new Date(Date.parse('2026-11-30T06:00:00Z') + index * 1_000).toISOString(),
        level: index % 3 === 0 ? 'ERROR' : 'INFO',
        service: 'svc',
        enterprise_id: index % 2 === 0 ? 'E1001' : 'E2002',
        message: `${'填充'.repeat(200)} #${index}`,
      }),
    );
    await writeFile(join(directory, 'svc.jsonl'), lines.join('\n'));
    const logs = createLocalLogsAdapter({ directory });
    const window = { service: 'svc', start_time: '2026-11-30T06:00:00Z', end_time: '2026-11-30T07:00:00Z' };
    const errors = await logs.execute(toolCall('query_logs', { ...window, level: 'ERROR' }));
    const all = await logs.execute(toolCall('query_logs', { ...window, limit: 50 }));
    expect(errors.status === 'OK' && errors.data.matched).toBe(100); // index % 6 === 0
    expect(all.status === 'OK' && all.data.matched).toBe(300);
    expect(all.status === 'OK' && all.data.lines[0]?.message.endsWith('#598')).toBe(true);
  });
});
