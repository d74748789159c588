import { placeChange } from '../change/change-placement.ts';
import { CHANGE_KINDS, type ChangeKind } from '../change/change-record.ts';
import { CHANGE_SERVICE_PATTERN } from '../change/change-sources.ts';
import { CHANGE_LIMITS, type ChangeStore, type StoredChange } from '../store/change-store.ts';
import type {
  AdapterResult,
  EvidenceAdapter,
  LogLine,
  LogsData,
  LogsInput,
  ToolCallRequest,
} from '../tools/evidence-adapter.ts';

/**
 * The service name under which `query_logs` reads the run's enterprise's change stream instead of its logs. NOTE: the
 * seed's three tools stay three: the change stream is one more source behind `query_logs`, named like a service.
 */
export const CHANGE_STREAM_SERVICE = 'changes';

/** What a change-stream `service` asks for: the changed service and the kind, each optional. */
export interface ChangeStreamFilter {
  service?: string;
  kind?: ChangeKind;
}

/**
 * Reads a `query_logs` service name as a change-stream query: `changes` (every change), `changes/<service>` (the
 * changes of one service), `changes/<service>/<kind>` or `changes/*\/<kind>` (of one kind: deploy, config, flag,
 * infra). Null when the name is not the change stream's; `'INVALID'` when it starts like it but names no valid filter.
 */
export function parseChangeStreamService(name: string): ChangeStreamFilter | 'INVALID' | null {
  if (name !== CHANGE_STREAM_SERVICE && !name.startsWith(`${CHANGE_STREAM_SERVICE}/`)) return null;
  const [, service, kind, ...rest] = name.split('/');
  if (rest.length > 0) return 'INVALID';
  const filter: ChangeStreamFilter = {};
  if (service !== undefined && service !== '*') {
    if (!CHANGE_SERVICE_PATTERN.test(service)) return 'INVALID';
    filter.service = service;
  }
  if (kind !== undefined) {
    const known = CHANGE_KINDS.find((candidate) => candidate === kind);
    if (known === undefined) return 'INVALID';
    filter.kind = known;
  } else if (service === '*') return 'INVALID';
  return filter;
}

export interface ChangeStreamLogsOptions {
  /** The logs adapter every other service name goes to. */
  logs: EvidenceAdapter<LogsInput, LogsData>;
  changes: Pick<ChangeStore, 'list'>;
  /** The longest one read of the change stream may take (default 2 s); past it the call answers TIMEOUT. */
  timeoutMs?: number;
}

const DEFAULT_LIMIT = 20;

/**
 * `query_logs` with the change stream of the run's enterprise behind the service name {@link CHANGE_STREAM_SERVICE}.
 * The enterprise is the run's (the call's `enterpriseId`, never the model's): it names the only partition read. The
 * window is the call's, already clamped into the run's incident window by the tool boundary, like every logs query;
 * `keyword` matches the ref, actor or summary; `level` and `trace_id` mean nothing for a change (INVALID_QUERY).
 * Each change is one row, newest first: when it landed, the service, its kind, ref, actor, summary, link and id, and
 * where it landed against the run's symptom — placed by code ({@link placeChange}), never by the model. Masking
 * happens after, at the tool boundary, as for every observation.
 */
export function createChangeStreamLogs(options: ChangeStreamLogsOptions): EvidenceAdapter<LogsInput, LogsData> {
  const timeoutMs = options.timeoutMs ?? 2_000;
  return {
    async execute(call) {
      const filter = parseChangeStreamService(call.input.service);
      if (filter === null) return options.logs.execute(call);
      if (filter === 'INVALID') return { status: 'ERROR', code: 'INVALID_QUERY', detail: 'change stream filter' };
      if (call.input.level !== undefined || call.input.trace_id !== undefined) {
        return { status: 'ERROR', code: 'INVALID_QUERY', detail: 'level or trace_id on the change stream' };
      }
      return readChanges(options.changes, call, filter, timeoutMs);
    },
  };
}

async function readChanges(
  store: Pick<ChangeStore, 'list'>,
  call: ToolCallRequest<LogsInput>,
  filter: ChangeStreamFilter,
  timeoutMs: number,
): Promise<AdapterResult<LogsData>> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([call.signal, timeout]);
  const limit = Math.min(CHANGE_LIMITS.rows, Math.max(1, call.input.limit ?? DEFAULT_LIMIT));
  let read: { matched: number; changes: StoredChange[] };
  try {
    read = await store.list(call.enterpriseId, {
      fromMs: Date.parse(call.input.start_time),
      toMs: Date.parse(call.input.end_time),
      ...filter,
      ...(call.input.keyword === undefined ? {} : { text: call.input.keyword }),
      limit,
      signal,
    });
  } catch (error) {
    const name = error instanceof Error ? error.name : typeof error;
    if (timeout.aborted || call.signal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'change stream' };
    return { status: 'ERROR', code: 'UNAVAILABLE', detail: `change stream read failed: ${name}` };
  }
  if (read.changes.length === 0) return { status: 'EMPTY' };
  return {
    status: 'OK',
    data: { matched: read.matched, lines: read.changes.map((change) => changeLine(change, call)) },
  };
}

/** A stored change as a change-stream row, placed against the call's incident. */
function changeLine(change: StoredChange, call: Pick<ToolCallRequest<unknown>, 'incident'>): LogLine {
  return {
    timestamp: change.at,
    level: change.kind,
    service: change.service ?? '',
    message: change.summary,
    change: {
      change_id: change.id,
      kind: change.kind,
      ref: change.ref,
      actor: change.actor,
      url: change.url,
      placement: placeChange(Date.parse(change.at), call.incident ?? null),
    },
  };
}
