import {
  type CloudWatchLogsClient,
  GetQueryResultsCommand,
  type ResultField,
  StartQueryCommand,
  StopQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import type {
  AdapterResult,
  EvidenceAdapter,
  LogLine,
  LogsData,
  LogsInput,
  ToolCallRequest,
} from '../evidence-adapter.ts';
import { awsError } from './aws-error.ts';

export interface CloudWatchLogsInsightsAdapterOptions {
  client: CloudWatchLogsClient;
  /** The log groups of each service; a service with none is an INVALID_QUERY. */
  logGroupsByService: Readonly<Record<string, readonly string[]>>;
  /** The structured-log field that carries the tenant. */
  tenantField?: string;
  defaultLimit?: number;
  /** First wait between polls; doubles up to `maxPollIntervalMs`. */
  pollIntervalMs?: number;
  maxPollIntervalMs?: number;
  /** Abortable wait; tests inject one that does not sleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

const FIELD_NAME = /^[A-Za-z_@][A-Za-z0-9_.@-]{0,63}$/;

/**
 * `query_logs` on CloudWatch Logs Insights: StartQuery on the service's configured log groups with a query built from
 * a fixed template (the tenant filter added from the run; level, trace id and keyword as escaped literals), then
 * GetQueryResults with backoff until complete, bounded by the signal; StopQuery on abort. No retries.
 */
export function createCloudWatchLogsInsightsAdapter(
  options: CloudWatchLogsInsightsAdapterOptions,
): EvidenceAdapter<LogsInput, LogsData> {
  const tenantField = options.tenantField ?? 'enterprise_id';
  if (!FIELD_NAME.test(tenantField)) throw new TypeError('tenantField must be a plain field name');
  const sleep = options.sleep ?? abortableSleep;
  const firstInterval = options.pollIntervalMs ?? 250;
  const maxInterval = options.maxPollIntervalMs ?? 2_000;

  return {
    async execute(call: ToolCallRequest<LogsInput>): Promise<AdapterResult<LogsData>> {
      const groups = Object.hasOwn(options.logGroupsByService, call.input.service)
        ? options.logGroupsByService[call.input.service]
        : undefined;
      if (groups === undefined || groups.length === 0) {
        return { status: 'ERROR', code: 'INVALID_QUERY', detail: 'no log group configured for the service' };
      }
      const limit = Math.min(50, Math.max(1, call.input.limit ?? options.defaultLimit ?? 20));
      let queryId: string | undefined;
      try {
        const started = await options.client.send(
          new StartQueryCommand({
            logGroupNames: [...groups],
            startTime: Math.floor(Date.parse(call.input.start_time) / 1_000),
            endTime: Math.ceil(Date.parse(call.input.end_time) / 1_000),
            queryString: buildInsightsQuery(call.input, call.enterpriseId, tenantField, limit),
            limit,
          }),
          { abortSignal: call.signal },
        );
        queryId = started.queryId;
        if (queryId === undefined)
          return { status: 'ERROR', code: 'INTERNAL', detail: 'StartQuery returned no queryId' };
        let interval = firstInterval;
        for (;;) {
          await sleep(interval, call.signal);
          const result = await options.client.send(new GetQueryResultsCommand({ queryId }), {
            abortSignal: call.signal,
          });
          switch (result.status) {
            case 'Complete': {
              const lines = (result.results ?? []).map((row) => toLogLine(row, call.input.service));
              const matched = Math.max(lines.length, Math.round(result.statistics?.recordsMatched ?? 0));
              if (lines.length === 0) return { status: 'EMPTY' };
              return { status: 'OK', data: { matched, lines } };
            }
            case 'Failed':
            case 'Cancelled':
              return { status: 'ERROR', code: 'UNAVAILABLE', detail: `query ${result.status}` };
            case 'Timeout':
              return { status: 'ERROR', code: 'TIMEOUT', detail: 'query Timeout' };
            default:
              interval = Math.min(maxInterval, interval * 2);
          }
        }
      } catch (error) {
        if (call.signal.aborted) {
          if (queryId !== undefined) {
            options.client.send(new StopQueryCommand({ queryId })).catch(() => undefined);
          }
          return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted by the harness' };
        }
        return awsError(error, 'logs');
      }
    },
  };
}

/**
 * The Logs Insights query of one call. Only validated fields enter it, each as an escaped literal: the tenant and
 * the trace id as double-quoted strings, the keyword as a case-insensitive regex with every metacharacter escaped.
 */
export function buildInsightsQuery(input: LogsInput, enterpriseId: string, tenantField: string, limit: number): string {
  const lines = [
    'fields @timestamp, @message, level, service, message, trace_id',
    `| filter ${tenantField} = ${stringLiteral(enterpriseId)}`,
    `| filter service = ${stringLiteral(input.service)}`,
  ];
  if (input.level !== undefined) lines.push(`| filter level = ${stringLiteral(input.level)}`);
  if (input.trace_id !== undefined) lines.push(`| filter trace_id = ${stringLiteral(input.trace_id)}`);
  if (input.keyword !== undefined) lines.push(`| filter @message like /(?i)${regexLiteral(input.keyword)}/`);
  lines.push('| sort @timestamp desc', `| limit ${limit}`);
  return lines.join('\n');
}

function stringLiteral(value: string): string {
  return `"${value
    .replace(/[\\"]/g, (char) => `\\${char}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')}"`;
}

function regexLiteral(value: string): string {
  return value
    .replace(/[\\/.*+?^${}()|[\]-]/g, (char) => `\\${char}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t');
}

function toLogLine(row: ResultField[], service: string): LogLine {
  const field = (name: string) => row.find((item) => item.field === name)?.value;
  const timestamp = field('@timestamp') ?? '';
  const line: LogLine = {
    timestamp: /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?$/.test(timestamp)
      ? `${timestamp.replace(' ', 'T')}Z`
      : timestamp,
    level: field('level') ?? '',
    service: field('service') ?? service,
    message: field('message') ?? field('@message') ?? '',
  };
  const traceId = field('trace_id');
  if (traceId !== undefined) line.trace_id = traceId;
  return line;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
