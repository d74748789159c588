// aws-sdk-client-mock: CloudWatch Logs Insights has no local engine.
import {
  CloudWatchLogsClient,
  GetQueryResultsCommand,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import type { LogsInput } from '@diagnosis/core';
import { buildInsightsQuery, createCloudWatchLogsInsightsAdapter } from '@diagnosis/core/adapters';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { toolCall } from '../../../../support/tool-call.ts';

const logs = mockClient(CloudWatchLogsClient);
const sleeps: number[] = [];
const adapter = createCloudWatchLogsInsightsAdapter({
  client: new CloudWatchLogsClient({ region: 'ap-east-1' }),
  logGroupsByService: { 'payment-gateway': ['/ecs/payment-gateway', '/ecs/payment-gateway-canary'] },
  sleep: async (ms) => void sleeps.push(ms),
});
const BASE: LogsInput = {
  service: 'payment-gateway',
  start_time: '2026-11-30T14:00:00+08:00',
  end_time: '2026-11-30T15:00:00+08:00',
};
const row = (fields: Record<string, string>) => Object.entries(fields).map(([field, value]) => ({ field, value }));

beforeEach(() => {
  logs.reset();
  sleeps.length = 0;
});

describe('createCloudWatchLogsInsightsAdapter', () => {
  it('starts one query on the service’s log groups with the tenant filter and polls until complete', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-1' });
    logs
      .on(GetQueryResultsCommand)
      .resolvesOnce({ status: 'Scheduled' })
      .resolvesOnce({ status: 'Running' })
      .resolvesOnce({
        status: 'Complete',
        statistics: { recordsMatched: 42 },
        results: [
          row({
            '@timestamp': '2026-11-30 06:59:58.123',
            level: 'ERROR',
            service: 'payment-gateway',
            message: 'HikariPool-1 timeout',
            trace_id: 't1',
            '@ptr': 'x',
          }),
          row({ '@timestamp': '2026-11-30 06:59:01.000', level: 'ERROR', '@message': '{"raw":true}' }),
        ],
      });

    const result = await adapter.execute(toolCall('query_logs', { ...BASE, level: 'ERROR', limit: 2 }));

    expect(logs.commandCalls(StartQueryCommand)[0]?.args[0].input).toEqual({
      logGroupNames: ['/ecs/payment-gateway', '/ecs/payment-gateway-canary'],
      startTime: Date.parse('2026-11-30T06:00:00Z') / 1_000,
      endTime: Date.parse('2026-11-30T07:00:00Z') / 1_000,
      queryString: [
        'fields @timestamp, @message, level, service, message, trace_id',
        '| filter enterprise_id = "E1001"',
        '| filter service = "payment-gateway"',
        '| filter level = "ERROR"',
        '| sort @timestamp desc',
        '| limit 2',
      ].join('\n'),
      limit: 2,
    });
    expect(logs.commandCalls(GetQueryResultsCommand)).toHaveLength(3);
    expect(sleeps).toEqual([250, 500, 1_000]);
    expect(result).toEqual({
      status: 'OK',
      data: {
        matched: 42,
        lines: [
          {
            timestamp: '2026-11-30T06:59:58.123Z',
            level: 'ERROR',
            service: 'payment-gateway',
            message: 'HikariPool-1 timeout',
            trace_id: 't1',
          },
          {
            timestamp: '2026-11-30T06:59:01.000Z',
            level: 'ERROR',
            service: 'payment-gateway',
            message: '{"raw":true}',
          },
        ],
      },
    });
  });

  it.each([
    ['quotes and a pipe', 'a" | filter enterprise_id = "E2002', '/(?i)a" \\| filter enterprise_id = "E2002/'],
    ['slashes', 'x/ | fields @message /', '/(?i)x\\/ \\| fields @message \\//'],
    ['backslashes', 'C:\\path\\', '/(?i)C:\\\\path\\\\/'],
    ['a newline', 'line1\n| filter 1=1', '/(?i)line1\\n\\| filter 1=1/'],
    ['regex metacharacters', '.*(a+b)?[x]{2}^$', '/(?i)\\.\\*\\(a\\+b\\)\\?\\[x\\]\\{2\\}\\^\\$/'],
  ])('escapes %s in the keyword as a literal case-insensitive match', (_label, keyword, expected) => {
    const query = buildInsightsQuery({ ...BASE, keyword }, 'E1001', 'enterprise_id', 20);
    expect(query.split('\n')).toContain(`| filter @message like ${expected}`);
    expect(query.split('\n')).toHaveLength(6);
    expect(query).toContain('| filter enterprise_id = "E1001"');
  });

  it.each([
    ['quotes', 'abc" or enterprise_id = "E2002', '"abc\\" or enterprise_id = \\"E2002"'],
    ['a newline and a pipe', 't1"\n| filter 1=1', '"t1\\"\\n| filter 1=1"'],
    ['backslashes', 'a\\"b', '"a\\\\\\"b"'],
  ])('escapes %s in the trace id as a string literal', (_label, traceId, expected) => {
    const query = buildInsightsQuery({ ...BASE, trace_id: traceId }, 'E1001', 'enterprise_id', 20);
    expect(query.split('\n')).toContain(`| filter trace_id = ${expected}`);
    expect(query.split('\n')).toHaveLength(6);
  });

  it('refuses a service without configured log groups, without calling AWS', async () => {
    expect(await adapter.execute(toolCall('query_logs', { ...BASE, service: 'billing' }))).toMatchObject({
      status: 'ERROR',
      code: 'INVALID_QUERY',
    });
    expect(await adapter.execute(toolCall('query_logs', { ...BASE, service: '__proto__' }))).toMatchObject({
      code: 'INVALID_QUERY',
    });
    expect(logs.calls()).toHaveLength(0);
  });

  it('answers EMPTY for a complete query without results', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-1' });
    logs.on(GetQueryResultsCommand).resolves({ status: 'Complete', results: [], statistics: { recordsMatched: 0 } });
    expect(await adapter.execute(toolCall('query_logs', BASE))).toEqual({ status: 'EMPTY' });
  });

  it.each([
    ['Failed', 'UNAVAILABLE'],
    ['Cancelled', 'UNAVAILABLE'],
    ['Timeout', 'TIMEOUT'],
  ] as const)('maps a %s query to %s', async (status, code) => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q-1' });
    logs.on(GetQueryResultsCommand).resolves({ status });
    expect(await adapter.execute(toolCall('query_logs', BASE))).toMatchObject({ status: 'ERROR', code });
  });

  it.each([
    ['ThrottlingException', 400, 'THROTTLED'],
    ['LimitExceededException', 400, 'THROTTLED'],
    ['AccessDeniedException', 403, 'ACCESS_DENIED'],
    ['ResourceNotFoundException', 400, 'NOT_CONFIGURED'],
    ['MalformedQueryException', 400, 'INVALID_QUERY'],
    ['ServiceUnavailableException', 503, 'UNAVAILABLE'],
    ['SomethingNew', 500, 'UNAVAILABLE'],
    ['SomethingNew', 400, 'INTERNAL'],
  ])('maps %s (HTTP %i) to %s once, without retrying and without the message', async (name, status, code) => {
    const error = Object.assign(new Error('User arn:aws:iam::123456789012:user/x is not authorized'), {
      name,
      $metadata: { httpStatusCode: status },
    });
    logs.on(StartQueryCommand).rejects(error);
    const result = await adapter.execute(toolCall('query_logs', BASE));
    expect(result).toMatchObject({ status: 'ERROR', code });
    expect(JSON.stringify(result)).not.toContain('123456789012');
    expect(logs.commandCalls(StartQueryCommand)).toHaveLength(1);
  });

  it('stops the query and answers TIMEOUT when aborted while polling', async () => {
    const controller = new AbortController();
    logs.on(StartQueryCommand).resolves({ queryId: 'q-9' });
    logs.on(GetQueryResultsCommand).callsFake(async () => {
      controller.abort();
      throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    });
    logs.on(StopQueryCommand).resolves({ success: true });
    const result = await adapter.execute(toolCall('query_logs', BASE, { signal: controller.signal }));
    expect(result).toMatchObject({ status: 'ERROR', code: 'TIMEOUT' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs.commandCalls(StopQueryCommand)[0]?.args[0].input).toEqual({ queryId: 'q-9' });
  });

  it('uses a real abortable wait by default', async () => {
    const realSleep = createCloudWatchLogsInsightsAdapter({
      client: new CloudWatchLogsClient({ region: 'ap-east-1' }),
      logGroupsByService: { 'payment-gateway': ['/g'] },
      pollIntervalMs: 60_000,
    });
    logs.on(StartQueryCommand).resolves({ queryId: 'q-2' });
    logs.on(StopQueryCommand).resolves({});
    const controller = new AbortController();
    const pending = realSleep.execute(toolCall('query_logs', BASE, { signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    expect(await pending).toMatchObject({ code: 'TIMEOUT' });
    expect(logs.commandCalls(GetQueryResultsCommand)).toHaveLength(0);
  });
});
