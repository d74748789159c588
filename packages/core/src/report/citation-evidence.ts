import { VERDICTS, type Verdict } from '../release/judge/judge-verdicts.ts';
import { type ModelFailureReport, modelFailureReport } from '../run/model-failure.ts';
import type { CheckEvaluation } from '../run/progress.ts';
import type { StopReason } from '../run/stop-reason.ts';
import { TOOL_NAMES, type ToolName } from '../run/tool-name.ts';
import { truncateChars, truncateUtf8, utf8Bytes } from '../run/utf8.ts';
import type { ToolDisposition } from '../store/audit-hook.ts';
import type { RunStatus, StoredRun, StoredToolInvocation } from '../store/run-store.ts';
import { canonicalJson } from '../tools/canonical-input.ts';
import { isRecord } from '../tools/evidence-projection.ts';
import { MAX_OBSERVATION_BYTES } from '../tools/observation.ts';
import { describeToolCall, envelopeInput, printable } from './describe-tool-call.ts';
import { pastIncidentRecord } from './past-incident-record.ts';

export interface CitationEvidenceLimits {
  maxCitations: number;
  maxInputBytes: number;
  maxObservationBytes: number;
  maxTotalBytes: number;
  /** The report's fixed texts and the judge's reasons, in characters. */
  maxTextChars: number;
}

/**
 * Bounds of a run's evidence view, whatever its items hold: each observation at most what the model may ever see
 * (8 KiB), each input at most 4 KiB, all inputs and observations together at most 64 KiB, at most 60 citations (a
 * Draft cites at most 10 × 6). A cut is flagged, never silent.
 */
export const CITATION_EVIDENCE_LIMITS: Readonly<CitationEvidenceLimits> = Object.freeze({
  maxCitations: 60,
  maxInputBytes: 4 * 1024,
  maxObservationBytes: MAX_OBSERVATION_BYTES,
  maxTotalBytes: 64 * 1024,
  maxTextChars: 500,
});

/** The SemanticGuard's verdict on one analysis item that cites the check. */
export interface CitationVerdict {
  /** The item's index in the Draft as the agent wrote it (the judge's numbering). */
  analysis_index: number;
  verdict: Verdict;
  /** The judge's one-line reason (its own words, bounded). */
  reason: string;
  /** The item was removed from the published result (enforce mode). */
  removed: boolean;
}

/** One cited check as its evidence: what the agent asked, what it saw, how it and the judge rated it. */
export interface CitationEvidence {
  tool_call_id: string;
  /** The EvidenceGuard verified the citation (a published one); false: only the Draft cites it (not published). */
  verified: boolean;
  /** The run's audit has a record of the call; false: the Draft cites an id this run never saw. */
  found: boolean;
  tool_name: ToolName | null;
  disposition: ToolDisposition | null;
  status: 'READY' | 'ERROR' | null;
  empty: boolean | null;
  /** The error, rejection or stop code of the call; null when READY. */
  code: string | null;
  /**
   * The business input (the envelope's `input`, without `previous_observation`) as canonical JSON text, keys sorted:
   * exactly what the duplicate check compares. Null when not recorded.
   */
  input: string | null;
  input_truncated: boolean;
  /** The observation the model saw, as the JSON text stored in the audit; null when none is recorded. */
  observation: string | null;
  /** The text above is not all of it (cut here at a bound, or already incomplete as stored). */
  observation_truncated: boolean;
  /** One line: `query_logs payment-gateway 2026-11-30 14:00–15:00 keyword=HikariPool → 67 matching lines, 10 shown`. */
  summary: string;
  /** The agent's own evaluation of the result in its next call's envelope (PENDING: the Draft came next). */
  evaluation: CheckEvaluation;
  /** Indexes of the Draft's analysis items that cite the check (the Draft as the agent wrote it). */
  cited_by: number[];
  verdicts: CitationVerdict[];
}

/** Why a run has no published diagnosis, in codes and fixed texts only: never an exception's text. */
export interface RunFailureCause {
  status: RunStatus;
  stop_reason: StopReason | null;
  collection_stop_reason: StopReason | null;
  error_code: string | null;
  /** What the model endpoint did, when the run failed on it: a kind, a status and identifiers. */
  model_failure: ModelFailureReport | null;
  /** The report's fixed message (and, for a FALLBACK, its fixed reason); null when the run has no report yet. */
  message: string | null;
  reason: string | null;
}

export interface RunEvidence {
  citations: CitationEvidence[];
  /** Citations beyond `maxCitations`, not listed. */
  omitted: number;
  /** Null for a SUCCEEDED or unfinished run. */
  failure: RunFailureCause | null;
}

/**
 * The evidence behind a run's citations, from its own audit records: for each check the Draft cites (the verified
 * citations of a published run; the Draft's own citations of one that was not published), its tool, canonical input,
 * the observation the model saw (as stored, bounded), the agent's evaluation and the judge's verdicts on the items
 * citing it; and for a run that did not succeed, its cause. Pure: reads nothing, throws for no item it is given.
 *
 * NOTE: the record of a call is the first one EXECUTED under its id, else the first one: a rejected reuse of an id
 * never replaces the call the model saw first, as in the SemanticGuard's evidence. The adapter's raw `result` and
 * audit-only `errorDetail` are never part of the view: only what the model itself saw.
 */
export function buildRunEvidence(
  run: StoredRun,
  tools: readonly StoredToolInvocation[],
  limits: CitationEvidenceLimits = CITATION_EVIDENCE_LIMITS,
): RunEvidence {
  const draft = run.draft ?? run.publishedResult?.draft ?? null;
  const analysis = Array.isArray(draft?.analysis) ? draft.analysis : [];
  const published = run.publishedResult?.citations ?? null;
  const ids = published === null ? draftCitations(analysis) : published.map((citation) => citation.tool_call_id);
  const records = canonicalRecords(tools);
  const evaluations = new Map((run.progress?.checks ?? []).map((check) => [check.toolCallId, check.evaluation]));
  const guard = judgeVerdicts(run.report);
  let budget = limits.maxTotalBytes;
  const citations = ids.slice(0, limits.maxCitations).map((rawId): CitationEvidence => {
    const id = truncateChars(String(rawId), 200);
    const record = records.get(id) ?? pastIncidentRecord(id, records);
    const citedBy = analysis.flatMap((item, index) =>
      Array.isArray(item?.tool_call_ids) && item.tool_call_ids.includes(id) ? [index] : [],
    );
    const verdicts = guard.analysis
      .filter((verdict) => citedBy.includes(verdict.index))
      .map((verdict) => ({
        analysis_index: verdict.index,
        verdict: verdict.verdict,
        reason: verdict.reason,
        removed: guard.removed.includes(verdict.index),
      }));
    const evaluation = evaluations.get(id) ?? (record === undefined ? undefined : evaluations.get(record.toolCallId));
    const base = { tool_call_id: id, verified: published !== null, evaluation: evaluation ?? null };
    if (record === undefined) {
      return {
        ...base,
        found: false,
        tool_name: null,
        disposition: null,
        status: null,
        empty: null,
        code: null,
        input: null,
        input_truncated: false,
        observation: null,
        observation_truncated: false,
        summary: 'no tool call with this id in the run’s audit',
        cited_by: citedBy,
        verdicts,
      };
    }
    const toolName = TOOL_NAMES.includes(record.toolName) ? record.toolName : null;
    const input = inputText(record, Math.min(limits.maxInputBytes, budget));
    budget = Math.max(0, budget - utf8Bytes(input.text ?? ''));
    const observation = observationText(record.observation, Math.min(limits.maxObservationBytes, budget));
    budget = Math.max(0, budget - utf8Bytes(observation.text ?? ''));
    return {
      ...base,
      found: true,
      tool_name: toolName,
      disposition: record.disposition ?? null,
      status: record.status ?? null,
      empty: typeof record.empty === 'boolean' ? record.empty : null,
      code: typeof record.code === 'string' ? printable(truncateChars(record.code, 64)) : null,
      input: input.text,
      input_truncated: input.truncated,
      observation: observation.text,
      observation_truncated: observation.truncated,
      summary: describeStoredToolCall(record),
      cited_by: citedBy,
      verdicts,
    };
  });
  return {
    citations,
    omitted: Math.max(0, ids.length - limits.maxCitations),
    failure: failureCause(run, limits.maxTextChars),
  };
}

/** The distinct ids the Draft's analysis cites, in the order it first cites them. */
function draftCitations(analysis: readonly { tool_call_ids?: readonly string[] }[]): string[] {
  const ids = new Set<string>();
  for (const item of analysis) {
    for (const id of Array.isArray(item?.tool_call_ids) ? item.tool_call_ids : []) {
      if (typeof id === 'string') ids.add(id);
    }
  }
  return [...ids];
}

function canonicalRecords(tools: readonly StoredToolInvocation[]): Map<string, StoredToolInvocation> {
  const byId = new Map<string, StoredToolInvocation>();
  const ordered = [...tools].sort((a, b) => (Date.parse(a.startedAt) || 0) - (Date.parse(b.startedAt) || 0));
  for (const tool of ordered) {
    if (typeof tool?.toolCallId !== 'string') continue;
    const known = byId.get(tool.toolCallId);
    if (known === undefined || (known.disposition !== 'EXECUTED' && tool.disposition === 'EXECUTED')) {
      byId.set(tool.toolCallId, tool);
    }
  }
  return byId;
}

/**
 * One line for any stored tool call, cited or not: what was asked and what came back (see {@link describeToolCall}).
 */
export function describeStoredToolCall(record: StoredToolInvocation): string {
  const toolName = TOOL_NAMES.includes(record.toolName) ? record.toolName : 'unknown_tool';
  return describeToolCall(toolName, envelopeInput(record.input), record.observation);
}

function inputText(record: StoredToolInvocation, maxBytes: number): { text: string | null; truncated: boolean } {
  if (record.input === undefined) return { text: null, truncated: false };
  // NOTE: a stored input over its cap is kept as its cut JSON text (`inputTruncated`): shown as it is, flagged.
  const stored = record.inputTruncated === true && typeof record.input === 'string';
  const text = stored ? (record.input as string) : canonicalJson(envelopeInput(record.input));
  return bounded(text, maxBytes, stored);
}

function observationText(observation: unknown, maxBytes: number): { text: string | null; truncated: boolean } {
  if (observation === undefined || observation === null) return { text: null, truncated: false };
  if (typeof observation === 'string') return bounded(observation, maxBytes, !parsesAsJson(observation));
  return bounded(JSON.stringify(observation) ?? 'null', maxBytes, false);
}

/** The text cut to `maxBytes` (flagged); C1 controls and bidi overrides made visible (JSON escapes only C0). */
function bounded(text: string, maxBytes: number, alreadyCut: boolean): { text: string; truncated: boolean } {
  const cut = utf8Bytes(text) > maxBytes;
  return { text: printable(cut ? truncateUtf8(text, maxBytes) : text), truncated: cut || alreadyCut };
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The judge's verdicts and removals from a stored report, read defensively (the report is stored as JSON). */
function judgeVerdicts(report: unknown): {
  analysis: { index: number; verdict: Verdict; reason: string }[];
  removed: number[];
} {
  const guard = isRecord(report) && isRecord(report.semantic_guard) ? report.semantic_guard : null;
  if (guard === null) return { analysis: [], removed: [] };
  const analysis = (Array.isArray(guard.analysis) ? guard.analysis : []).flatMap((entry) =>
    isRecord(entry) &&
    Number.isSafeInteger(entry.index) &&
    VERDICTS.includes(entry.verdict as Verdict) &&
    typeof entry.reason === 'string'
      ? [{ index: entry.index as number, verdict: entry.verdict as Verdict, reason: oneLine(entry.reason, 300) }]
      : [],
  );
  const removed = (Array.isArray(guard.removed) ? guard.removed : []).filter(Number.isSafeInteger) as number[];
  return { analysis, removed };
}

function failureCause(run: StoredRun, maxChars: number): RunFailureCause | null {
  if (run.status === 'SUCCEEDED' || run.status === 'QUEUED' || run.status === 'RUNNING') return null;
  const report = isRecord(run.report) ? run.report : {};
  const text = (value: unknown) => (typeof value === 'string' ? oneLine(value, maxChars) : null);
  return {
    status: run.status,
    stop_reason: run.stopReason ?? null,
    collection_stop_reason: run.collectionStopReason ?? null,
    error_code: run.errorCode ?? null,
    model_failure: isRecord(run.modelFailure) ? modelFailureReport(run.modelFailure) : null,
    // NOTE: the report's texts are the release's fixed texts (release-texts.ts), chosen by code.
    message: text(report.message),
    reason: text(report.reason),
  };
}

const oneLine = (text: string, maxChars: number) => printable(truncateChars(text, maxChars)).replace(/\s+/g, ' ');
