import { CHANGE_PLACEMENTS } from '../change/change-placement.ts';
import { CHANGE_ID_PATTERN, CHANGE_KINDS, CHANGE_TEXT_CAPS } from '../change/change-record.ts';
import { truncateChars } from '../run/utf8.ts';
import {
  type ChangeLineFields,
  type KnowledgeData,
  type KnowledgeHit,
  type LogsData,
  type MysqlCell,
  type MysqlData,
  PAST_INCIDENT_RATINGS,
  type PastIncidentRating,
  type ToolName,
} from './evidence-adapter.ts';

/** Bounds of the whitelist projection: what the model may see of one successful result. */
export const PROJECTION_LIMITS = Object.freeze({
  hits: 5,
  snippetChars: 600,
  titleChars: 200,
  idChars: 200,
  serviceChars: 100,
  logLines: 20,
  // NOTE: a log source joins a multi-line event (an exception and its chain of causes) into one message; the root
  // cause is its last line. 2,000 characters hold the chains measured on Cloud-OpsBench's Train-Ticket database
  // cases (docs/evaluation.md); the observation's 8 KiB bound is unchanged, so long lines mean fewer lines.
  logMessageChars: 2_000,
  timestampChars: 40,
  levelChars: 10,
  traceIdChars: 128,
  rows: 20,
  columns: 12,
  columnNameChars: 64,
  cellChars: 200,
});

export type ProjectedData = KnowledgeData | LogsData | MysqlData;

export type Projection = { ok: true; data: ProjectedData; empty: boolean } | { ok: false };

/**
 * How the projection masks what it keeps (see `tools/masking/`): every text field before it is cut to its bound (a
 * value cut first could escape its detector), and each MySQL cell with its column's name (a `password` column is
 * redacted whole).
 */
export interface EvidenceMasker {
  text(value: string): string;
  cell(value: string | number, column: string): string | number;
}

const NO_MASKING: EvidenceMasker = { text: (value) => value, cell: (value) => value };

/**
 * Builds a new object from the whitelisted fields of an adapter's data, each bounded. Fields that are not on the
 * whitelist never pass; data of the wrong shape is refused (the boundary reports it as INTERNAL).
 */
export function projectEvidence(toolName: ToolName, data: unknown, masker: EvidenceMasker = NO_MASKING): Projection {
  if (!isRecord(data)) return { ok: false };
  switch (toolName) {
    case 'lookup_knowledge':
      return projectKnowledge(data, masker);
    case 'query_logs':
      return projectLogs(data, masker);
    case 'query_mysql':
      return projectMysql(data, masker);
  }
}

function projectKnowledge(data: Record<string, unknown>, mask: EvidenceMasker): Projection {
  if (!Array.isArray(data.hits)) return { ok: false };
  const hits: KnowledgeData['hits'] = [];
  for (const hit of data.hits.slice(0, PROJECTION_LIMITS.hits)) {
    if (!isRecord(hit)) return { ok: false };
    const { doc_id, title, snippet, score, service } = hit;
    if (typeof doc_id !== 'string' || typeof title !== 'string' || typeof snippet !== 'string') return { ok: false };
    if (typeof score !== 'number' || !Number.isFinite(score)) return { ok: false };
    if (service !== undefined && typeof service !== 'string') return { ok: false };
    const pastIncident = pastIncidentFields(hit);
    if (pastIncident === false) return { ok: false };
    hits.push({
      doc_id: truncateChars(mask.text(doc_id), PROJECTION_LIMITS.idChars),
      title: truncateChars(mask.text(title), PROJECTION_LIMITS.titleChars),
      snippet: truncateChars(mask.text(snippet), PROJECTION_LIMITS.snippetChars),
      score: Math.round(score * 10_000) / 10_000,
      ...(service === undefined ? {} : { service: truncateChars(mask.text(service), PROJECTION_LIMITS.serviceChars) }),
      ...pastIncident,
    });
  }
  return { ok: true, data: { hits }, empty: hits.length === 0 };
}

const PAST_RUN_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$/;
const PAST_OCCURRED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A past incident's marks, checked exactly (they are never masked: a run id, a UTC instant and a rating have fixed
 * forms): `{}` for a runbook hit, false for a hit with a malformed or partial mark (the whole result is refused).
 */
function pastIncidentFields(hit: Record<string, unknown>): Partial<KnowledgeHit> | false {
  const { source, run_id, occurred_at, rating } = hit;
  if (source === undefined && run_id === undefined && occurred_at === undefined && rating === undefined) return {};
  if (source !== 'past_incident' || typeof run_id !== 'string' || !PAST_RUN_ID.test(run_id)) return false;
  if (typeof occurred_at !== 'string' || !PAST_OCCURRED_AT.test(occurred_at)) return false;
  if (!PAST_INCIDENT_RATINGS.some((known) => known === rating)) return false;
  return { source, run_id, occurred_at, rating: rating as PastIncidentRating };
}

function projectLogs(data: Record<string, unknown>, mask: EvidenceMasker): Projection {
  const { matched } = data;
  if (!Array.isArray(data.lines) || typeof matched !== 'number' || !Number.isSafeInteger(matched) || matched < 0) {
    return { ok: false };
  }
  const lines: LogsData['lines'] = [];
  for (const line of data.lines.slice(0, PROJECTION_LIMITS.logLines)) {
    if (!isRecord(line)) return { ok: false };
    const { timestamp, level, service, message, trace_id, change } = line;
    if (typeof timestamp !== 'string' || typeof level !== 'string') return { ok: false };
    if (typeof service !== 'string' || typeof message !== 'string') return { ok: false };
    if (trace_id !== undefined && typeof trace_id !== 'string') return { ok: false };
    const changeFields = change === undefined ? undefined : projectChangeFields(change, mask);
    if (changeFields === null) return { ok: false };
    lines.push({
      timestamp: truncateChars(mask.text(timestamp), PROJECTION_LIMITS.timestampChars),
      level: truncateChars(mask.text(level), PROJECTION_LIMITS.levelChars),
      service: truncateChars(mask.text(service), PROJECTION_LIMITS.serviceChars),
      message: truncateChars(mask.text(message), PROJECTION_LIMITS.logMessageChars),
      ...(trace_id === undefined
        ? {}
        : { trace_id: truncateChars(mask.text(trace_id), PROJECTION_LIMITS.traceIdChars) }),
      ...(changeFields === undefined ? {} : { change: changeFields }),
    });
  }
  return { ok: true, data: { matched: Math.max(matched, lines.length), lines }, empty: lines.length === 0 };
}

/**
 * A change-stream row's own fields, checked exactly where they have a fixed form (the id, the kind, the placement:
 * never masked) and masked and bounded where a sender wrote them (ref, actor, link); null when malformed.
 */
function projectChangeFields(change: unknown, mask: EvidenceMasker): ChangeLineFields | null {
  if (!isRecord(change)) return null;
  const { change_id, kind, ref, actor, url, placement } = change;
  if (typeof change_id !== 'string' || !CHANGE_ID_PATTERN.test(change_id)) return null;
  const knownKind = CHANGE_KINDS.find((candidate) => candidate === kind);
  const knownPlacement = placement === null ? null : CHANGE_PLACEMENTS.find((candidate) => candidate === placement);
  if (knownKind === undefined || knownPlacement === undefined) return null;
  const text = (value: unknown, cap: number) =>
    value === null ? null : typeof value === 'string' ? truncateChars(mask.text(value), cap) : undefined;
  const fields = {
    ref: text(ref, CHANGE_TEXT_CAPS.ref),
    actor: text(actor, CHANGE_TEXT_CAPS.actor),
    url: text(url, CHANGE_TEXT_CAPS.url),
  };
  if (fields.ref === undefined || fields.actor === undefined || fields.url === undefined) return null;
  return {
    change_id,
    kind: knownKind,
    ref: fields.ref,
    actor: fields.actor,
    url: fields.url,
    placement: knownPlacement,
  };
}

function projectMysql(data: Record<string, unknown>, mask: EvidenceMasker): Projection {
  const { columns, rows, truncated } = data;
  if (!Array.isArray(columns) || !Array.isArray(rows) || typeof truncated !== 'boolean') return { ok: false };
  if (!columns.every((column) => typeof column === 'string')) return { ok: false };
  const keptColumns = columns.slice(0, PROJECTION_LIMITS.columns) as string[];
  const projectedRows: MysqlCell[][] = [];
  for (const row of rows.slice(0, PROJECTION_LIMITS.rows)) {
    if (!Array.isArray(row)) return { ok: false };
    const cells: MysqlCell[] = [];
    for (const [index, cell] of row.slice(0, PROJECTION_LIMITS.columns).entries()) {
      const column = keptColumns[index] ?? '';
      if (cell === null) cells.push(null);
      else if (typeof cell !== 'string' && !(typeof cell === 'number' && Number.isFinite(cell))) return { ok: false };
      else {
        const masked = mask.cell(cell, column);
        cells.push(typeof masked === 'string' ? truncateChars(masked, PROJECTION_LIMITS.cellChars) : masked);
      }
    }
    projectedRows.push(cells);
  }
  return {
    ok: true,
    data: {
      columns: keptColumns.map((column) => truncateChars(mask.text(column), PROJECTION_LIMITS.columnNameChars)),
      rows: projectedRows,
      truncated: truncated || rows.length > PROJECTION_LIMITS.rows || columns.length > PROJECTION_LIMITS.columns,
    },
    empty: projectedRows.length === 0,
  };
}

/**
 * Drops trailing items (the lowest-ranked hits, the oldest lines, the last rows) until `fits` accepts the data.
 * A MySQL result that lost rows is marked `truncated`; a logs result keeps its `matched` total.
 */
export function shrinkToFit(data: ProjectedData, fits: (candidate: ProjectedData) => boolean): ProjectedData {
  if (fits(data)) return data;
  const list = 'hits' in data ? data.hits : 'lines' in data ? data.lines : data.rows;
  let low = 0;
  let high = list.length;
  // Binary search for the longest prefix that fits.
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(withPrefix(data, middle))) low = middle;
    else high = middle - 1;
  }
  return withPrefix(data, low);
}

function withPrefix(data: ProjectedData, count: number): ProjectedData {
  if ('hits' in data) return { hits: data.hits.slice(0, count) };
  if ('lines' in data) return { matched: data.matched, lines: data.lines.slice(0, count) };
  return {
    columns: data.columns,
    rows: data.rows.slice(0, count),
    truncated: data.truncated || count < data.rows.length,
  };
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
