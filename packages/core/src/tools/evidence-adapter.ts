import type { ChangeIncident, ChangePlacement } from '../change/change-placement.ts';
import type { ChangeKind } from '../change/change-record.ts';
import type { ToolName } from '../run/tool-name.ts';

export { TOOL_NAMES, type ToolName } from '../run/tool-name.ts';

export type LogLevel = 'ERROR' | 'WARN' | 'INFO';

/** Business input of `lookup_knowledge` (the envelope's `input`). */
export interface KnowledgeInput {
  query: string;
  service?: string;
  top_k?: number;
}

/** Business input of `query_logs`. Times are ISO 8601 with an offset; the window is at most 24 h. */
export interface LogsInput {
  service: string;
  start_time: string;
  end_time: string;
  keyword?: string;
  level?: LogLevel;
  trace_id?: string;
  limit?: number;
}

/** Business input of `query_mysql`: a catalog entry by name and its parameters. */
export interface MysqlInput {
  query_name: string;
  params: Record<string, string | number>;
}

export interface KnowledgeHit {
  doc_id: string;
  title: string;
  snippet: string;
  score: number;
  service?: string;
  /**
   * Set only on a past incident (a run's diagnosis a responder rated), never by a runbook source: with it, the run it
   * remembers, when that was and how it was rated. NOTE: a past incident is a lead, never evidence about today.
   */
  source?: 'past_incident';
  run_id?: string;
  occurred_at?: string;
  rating?: PastIncidentRating;
}

/** The ratings a past incident can carry (a run rated WRONG or UNHELPFUL is never one). */
export const PAST_INCIDENT_RATINGS = Object.freeze(['CORRECT', 'PARTIALLY_CORRECT'] as const);
export type PastIncidentRating = (typeof PAST_INCIDENT_RATINGS)[number];
export interface KnowledgeData {
  hits: KnowledgeHit[];
}

export interface LogLine {
  timestamp: string;
  level: string;
  service: string;
  message: string;
  trace_id?: string;
  /**
   * Set only on a row of the change stream (`query_logs` of the service `changes`): the line is one change — its
   * `timestamp` when it landed, `level` its kind, `service` the service it changed, `message` its summary — and this
   * says what else a responder needs, with where code placed it against the run's symptom.
   */
  change?: ChangeLineFields;
}

/** The fields of a change-stream row beside a log line's (see `LogLine.change`). */
export interface ChangeLineFields {
  /** The change's id (`chg_…`): how a finding names the change it blames. */
  change_id: string;
  kind: ChangeKind;
  ref: string | null;
  actor: string | null;
  url: string | null;
  /** Where the change landed against the run's incident, placed by code; null when the run has no incident. */
  placement: ChangePlacement | null;
}
export interface LogsData {
  /** Total number of matching lines, of which `lines` is the newest `limit`. */
  matched: number;
  lines: LogLine[];
}

export type MysqlCell = string | number | null;
export interface MysqlData {
  columns: string[];
  rows: MysqlCell[][];
  /** More rows matched than the catalog entry's `max_rows`. */
  truncated: boolean;
}

export type MysqlParamType = 'string' | 'integer' | 'datetime';

export interface MysqlParamDescriptor {
  type: MysqlParamType;
  description: string;
  max_length?: number;
  min?: number;
  max?: number;
}

/** What the model is told about one named, read-only query. The SQL itself is never shown. */
export interface MysqlQueryDescriptor {
  name: string;
  description: string;
  params: Record<string, MysqlParamDescriptor>;
}

/** Stable error codes an adapter may report; anything else reaches the model as INTERNAL. */
export const EVIDENCE_ERROR_CODES = Object.freeze([
  'TIMEOUT',
  'UNAVAILABLE',
  'THROTTLED',
  'INVALID_QUERY',
  'NOT_CONFIGURED',
  'ACCESS_DENIED',
  'INTERNAL',
  /** Only a recorded world answers it (a captured run's replay): the input is not in the recording. */
  'NOT_RECORDED',
] as const);

export type EvidenceErrorCode = (typeof EVIDENCE_ERROR_CODES)[number];

/**
 * One validated tool call as an adapter receives it: the business input already unwrapped from its envelope, the
 * tenant taken from the run (never from the model), and the exact tool call id of the framework.
 */
export interface ToolCallRequest<I> {
  runId: string;
  sessionId: string;
  enterpriseId: string;
  toolCallId: string;
  toolName: ToolName;
  input: I;
  /** Aborts at cancellation and when the collection window closes; adapters stop work and release resources. */
  signal: AbortSignal;
  /**
   * The run's incident (its window's start and when its symptom began), set by code from the run's trigger: what the
   * change stream places each change against. Absent: the run has none (it was not triggered).
   */
  incident?: ChangeIncident;
}

/**
 * What an adapter answers. `detail` is for the audit only: it never reaches the model or a caller, and must carry
 * no credentials, connection strings or raw driver text.
 */
export type AdapterResult<D> =
  | { status: 'OK'; data: D }
  | { status: 'EMPTY' }
  | { status: 'ERROR'; code: string; detail?: string };

/** Port: one read-only evidence source. Adapters never retry and bound their own result sizes. */
export interface EvidenceAdapter<I, D> {
  execute(call: ToolCallRequest<I>): Promise<AdapterResult<D>>;
}

/** The three adapters of a run, chosen by configuration outside the core. */
export interface EvidenceAdapters {
  lookup_knowledge: EvidenceAdapter<KnowledgeInput, KnowledgeData>;
  query_logs: EvidenceAdapter<LogsInput, LogsData>;
  query_mysql: EvidenceAdapter<MysqlInput, MysqlData> & { catalog: readonly MysqlQueryDescriptor[] };
}
