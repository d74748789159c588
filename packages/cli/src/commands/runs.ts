// NOTE: over 300 lines on purpose: one command (diagnosis runs): reading the runs and what is attached to them
// (deliveries, incidents, scorecards) and rendering them as one table.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { IncidentEventKind, ProcessScorecard } from '@diagnosis/core';
import { isEnterpriseId, isSessionId } from '@diagnosis/core/ids';
import { type Command, EXIT, type OptionSpec, printable, usageError, wholeNumberOption } from '../command-line.ts';
import { statusWord } from '../render/outcome-words.ts';
import { processCell } from '../render/process-summary.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

/**
 * The most items one listing reads without an index. NOTE: the table has no index by time (its one GSI is by
 * enterprise and session), so listing every recent run is a Scan. That is fine for the local table (a developer's
 * runs), and bounded everywhere: at most this many items are read, and the listing says when it stopped early. With
 * both --enterprise and --session the session index is queried instead: newest first, no scan.
 */
const MAX_SCANNED_ITEMS = 5_000;

/** One line of the listing. */
export interface RunSummary {
  runId: string;
  status: string;
  stopReason: string | null;
  errorCode: string | null;
  totalTokens: number | null;
  createdAt: string;
  enterpriseId: string;
  sessionId: string;
  query: string;
  /** The run's stored process scorecard (see docs/learning-from-runs.md); null when it has none. */
  process: ProcessScorecard | null;
  /** The delivery of its result, per destination (only when the run has any: see docs/delivery.md). */
  delivery?: { destinationId: string; status: string; attempts: number; lastError: string | null }[];
  /**
   * A triggered run's incident: its source, how many later events were recorded on the run (at most 100 are read)
   * and what the last of them said (FIRING, ACKNOWLEDGED, RESOLVED…; null when none). Absent for a caller's run.
   */
  incident?: { source: string; events: number; lastSaid: IncidentEventKind | null };
}

const PROJECTION =
  'run_id, #status, stop_reason, error_code, #usage, created_at, enterprise_id, session_id, #query, entity, process_scorecard, #trigger.#source';
const NAMES = { '#status': 'status', '#usage': 'usage', '#query': 'query', '#trigger': 'trigger', '#source': 'source' };

const LIMIT: OptionSpec = {
  name: 'limit',
  type: 'string',
  value: '<n>',
  description: 'how many runs',
  default: '20',
  range: [1, 200],
};

/** `diagnosis runs`: the recent runs of a table, newest first. */
export const runsCommand: Command = {
  name: 'runs',
  summary: 'list recent runs (status, stop reason, tokens, age)',
  synopsis: '[--enterprise <id>] [--session <id>] [--limit <n>] [--json]',
  description: [
    'Lists the newest runs of the table (the local one by default; any table with DYNAMODB_ENDPOINT and',
    'DIAGNOSIS_TABLE_NAME): id, status, stop reason (or error code), tokens, age, enterprise, session, query.',
    'With --enterprise and --session it reads the session index (no scan). Otherwise it scans at most',
    `${MAX_SCANNED_ITEMS.toLocaleString('en')} items and says so when the table holds more.`,
  ],
  options: [
    { name: 'enterprise', type: 'string', value: '<id>', description: 'only runs of this enterprise' },
    { name: 'session', type: 'string', value: '<id>', description: 'only runs of this session' },
    LIMIT,
    { name: 'json', type: 'boolean', description: 'print a JSON array of the runs' },
  ],
  examples: ['diagnosis runs', 'diagnosis runs --enterprise E1001 --session demo --limit 5', 'diagnosis runs --json'],
  exitCodes: [
    [EXIT.OK, 'listed (none too: the listing says so)'],
    [EXIT.USAGE, 'bad usage: an unknown option, a bad limit, enterprise or session id'],
    [EXIT.UNAVAILABLE, 'no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT'],
  ],
  settings: STORE_SETTINGS,
  async run({ values, positionals }, io) {
    if (positionals.length > 0) throw usageError(`runs takes no argument, not '${printable(positionals[0] ?? '')}'`);
    const limit = wholeNumberOption(LIMIT, values.limit) as number;
    const enterpriseId = values.enterprise === undefined ? undefined : String(values.enterprise);
    const sessionId = values.session === undefined ? undefined : String(values.session);
    if (enterpriseId !== undefined && !isEnterpriseId(enterpriseId)) {
      throw usageError(
        `bad enterprise id '${printable(enterpriseId)}': upper-case letters, digits, _ and - (e.g. E1001)`,
      );
    }
    if (sessionId !== undefined && !isSessionId(sessionId)) {
      throw usageError(`bad session id '${printable(sessionId)}': letters, digits and _ . : - (at most 128)`);
    }
    const { startLocalRuntime } = await import('../local/local-runtime.ts');
    const { DynamoDBDocumentClient } = await import('@aws-sdk/lib-dynamodb');
    const runtime = await startLocalRuntime(io.env, (line) => io.stderr(`${line}\n`));
    try {
      const documents = DynamoDBDocumentClient.from(runtime.client);
      const listing = await listRuns(documents, runtime.tableName, { enterpriseId, sessionId, limit });
      const { createDynamoDeliveryStore } = await import('@diagnosis/functions/delivery-store');
      await attachDeliveries(
        listing.runs,
        createDynamoDeliveryStore({ client: runtime.client, tableName: runtime.tableName }),
      );
      const { createDynamoIncidentStore } = await import('@diagnosis/core/store');
      await attachIncidents(
        listing.runs,
        createDynamoIncidentStore({ client: runtime.client, tableName: runtime.tableName }),
      );
      if (values.json === true) {
        io.stdout(`${JSON.stringify(listing.runs, null, 2)}\n`);
        return EXIT.OK;
      }
      io.stdout(renderRuns(listing.runs, Date.now(), { enterpriseId, sessionId }));
      if (listing.bounded) {
        io.stderr(
          `(read the first ${MAX_SCANNED_ITEMS.toLocaleString('en')} items of table ${runtime.tableName}: older runs may be missing; --enterprise with --session reads the session index)\n`,
        );
      }
      return EXIT.OK;
    } finally {
      await runtime.stop();
    }
  },
};

/** The newest runs: from the session index when both ids are given, else a bounded scan. */
async function listRuns(
  documents: DynamoDBDocumentClient,
  tableName: string,
  filter: { enterpriseId?: string | undefined; sessionId?: string | undefined; limit: number },
): Promise<{ runs: RunSummary[]; bounded: boolean }> {
  const { QueryCommand, ScanCommand } = await import('@aws-sdk/lib-dynamodb');
  const { sessionKey } = await import('@diagnosis/core/store');
  if (filter.enterpriseId !== undefined && filter.sessionId !== undefined) {
    const page = await documents.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :session',
        FilterExpression: 'entity = :run',
        ProjectionExpression: PROJECTION,
        ExpressionAttributeNames: NAMES,
        ExpressionAttributeValues: { ':session': sessionKey(filter.enterpriseId, filter.sessionId), ':run': 'run' },
        ScanIndexForward: false,
        Limit: filter.limit,
      }),
    );
    return { runs: summaries(page.Items ?? []).slice(0, filter.limit), bounded: false };
  }
  const conditions = ['entity = :run'];
  const values: Record<string, string> = { ':run': 'run' };
  if (filter.enterpriseId !== undefined) {
    conditions.push('enterprise_id = :enterprise');
    values[':enterprise'] = filter.enterpriseId;
  }
  if (filter.sessionId !== undefined) {
    conditions.push('session_id = :session');
    values[':session'] = filter.sessionId;
  }
  const items: Record<string, unknown>[] = [];
  let scanned = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: conditions.join(' AND '),
        ProjectionExpression: PROJECTION,
        ExpressionAttributeNames: NAMES,
        ExpressionAttributeValues: values,
        Limit: MAX_SCANNED_ITEMS - scanned,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
      }),
    );
    items.push(...(page.Items ?? []));
    scanned += page.ScannedCount ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined && scanned < MAX_SCANNED_ITEMS);
  const runs = summaries(items).sort(
    (a, b) => b.createdAt.localeCompare(a.createdAt) || b.runId.localeCompare(a.runId),
  );
  return { runs: runs.slice(0, filter.limit), bounded: startKey !== undefined };
}

/** Items as summaries; an item of another shape (not ours) is skipped, never trusted. */
function summaries(items: Record<string, unknown>[]): RunSummary[] {
  const runs: RunSummary[] = [];
  for (const item of items) {
    const text = (key: string) => (typeof item[key] === 'string' ? (item[key] as string) : null);
    const runId = text('run_id');
    const createdAt = text('created_at');
    if (runId === null || createdAt === null) continue;
    const usage = item.usage as { totalTokens?: unknown } | null | undefined;
    runs.push({
      runId,
      status: statusWord(text('status') ?? '?'),
      stopReason: text('stop_reason'),
      errorCode: text('error_code'),
      totalTokens: typeof usage?.totalTokens === 'number' ? usage.totalTokens : null,
      createdAt,
      enterpriseId: text('enterprise_id') ?? '?',
      sessionId: text('session_id') ?? '?',
      query: text('query') ?? '',
      process: processScorecardOf(item.process_scorecard),
      ...triggerSourceOf(item.trigger),
    });
  }
  return runs;
}

/** The item's scorecard when it has the stored shape, else null (an item of another shape is never trusted). */
function processScorecardOf(value: unknown): ProcessScorecard | null {
  const card = value as { version?: unknown; toolCalls?: Record<string, unknown> } | null | undefined;
  const calls = card?.toolCalls;
  const counts = ['executed', 'refused', 'redundant'].every((key) => Number.isSafeInteger(calls?.[key]));
  return card?.version === 1 && counts ? (value as ProcessScorecard) : null;
}

/** Each run's delivery records (one query of its own small partition per listed run; at most 200). */
async function attachDeliveries(
  runs: RunSummary[],
  store: {
    listDeliveries: (
      run: Pick<RunSummary, 'runId' | 'enterpriseId' | 'createdAt'>,
    ) => Promise<NonNullable<RunSummary['delivery']>>;
  },
): Promise<void> {
  for (const run of runs) {
    const records = await store.listDeliveries(run);
    if (records.length > 0) {
      run.delivery = records.map(({ destinationId, status, attempts, lastError }) => ({
        destinationId,
        status,
        attempts,
        lastError,
      }));
    }
  }
}

/** `{ incident }` with no events yet for an item whose trigger names a source (read from a projection), else nothing. */
function triggerSourceOf(value: unknown): Pick<RunSummary, 'incident'> {
  const source = (value as { source?: unknown } | null | undefined)?.source;
  return typeof source === 'string' ? { incident: { source, events: 0, lastSaid: null } } : {};
}

/** Each triggered run's later incident events: how many, and what the last said (one query per triggered run). */
export async function attachIncidents(
  runs: RunSummary[],
  store: { listIncidentEvents: (runId: string) => Promise<{ kind: IncidentEventKind }[]> },
): Promise<void> {
  for (const run of runs) {
    if (run.incident === undefined) continue;
    const events = await store.listIncidentEvents(run.runId);
    run.incident = { ...run.incident, events: events.length, lastSaid: events.at(-1)?.kind ?? null };
  }
}

/** `alertmanager · 3 events · RESOLVED`, `cloudwatch · no later event`, `—` for a caller's run. */
function incidentSummary(incident: RunSummary['incident']): string {
  if (incident === undefined) return '—';
  if (incident.events === 0) return `${incident.source} · no later event`;
  const count = `${incident.events}${incident.events >= 100 ? '+' : ''} event${incident.events === 1 ? '' : 's'}`;
  return `${incident.source} · ${count} · ${incident.lastSaid ?? '?'}`;
}

/** `2/3 delivered`, `1/2 delivered, 1 DEAD_LETTERED`, `—` when nothing was to be delivered. */
function deliverySummary(delivery: RunSummary['delivery']): string {
  if (delivery === undefined || delivery.length === 0) return '—';
  const delivered = delivery.filter((record) => record.status === 'DELIVERED').length;
  const dead = delivery.filter((record) => record.status === 'DEAD_LETTERED').length;
  return `${delivered}/${delivery.length} delivered${dead > 0 ? `, ${dead} DEAD_LETTERED` : ''}`;
}

/**
 * The listing as a table; every value cut and cleaned (a table's content is data, not terminal commands). An empty
 * listing says why: a filter that matches nothing is not an empty table.
 */
export function renderRuns(
  runs: RunSummary[],
  nowMs: number,
  filter: { enterpriseId?: string | undefined; sessionId?: string | undefined } = {},
): string {
  if (runs.length === 0) {
    const given = [
      ...(filter.enterpriseId === undefined ? [] : [`--enterprise ${filter.enterpriseId}`]),
      ...(filter.sessionId === undefined ? [] : [`--session ${filter.sessionId}`]),
    ];
    if (given.length === 0) return 'no runs yet: try npm run demo\n';
    return `no run matches ${given.join(' ')}: diagnosis runs without ${given.length === 1 ? 'it' : 'them'} lists every run\n`;
  }
  // The DELIVERY column only when some run had destinations to deliver to.
  const delivered = runs.some((run) => run.delivery !== undefined);
  // The INCIDENT column only when some run was started by an alarm or webhook.
  const triggered = runs.some((run) => run.incident !== undefined);
  const rows = runs.map((run) => [
    printable(run.runId),
    printable(statusWord(run.status)),
    printable(run.stopReason ?? run.errorCode ?? '—'),
    run.totalTokens === null ? '—' : run.totalTokens.toLocaleString('en'),
    processCell(run.process),
    age(nowMs - Date.parse(run.createdAt)),
    printable(run.enterpriseId),
    printable(run.sessionId),
    ...(delivered ? [deliverySummary(run.delivery)] : []),
    ...(triggered ? [printable(incidentSummary(run.incident))] : []),
    cut(printable(run.query.replace(/\s+/g, ' ')), 32),
  ]);
  const header = [
    'RUN',
    'STATUS',
    'STOP / CODE',
    'TOKENS',
    'CALLS',
    'AGE',
    'ENTERPRISE',
    'SESSION',
    ...(delivered ? ['DELIVERY'] : []),
    ...(triggered ? ['INCIDENT'] : []),
    'QUERY',
  ];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `12 s`, `5 min`, `3 h`, `2 d` ago. */
export function age(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const seconds = Math.floor(ms / 1_000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3_600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3_600)} h`;
  return `${Math.floor(seconds / 86_400)} d`;
}
