/**
 * The versioned result event, `Diagnosis Run Finished` (`detail.schemaVersion: 1`): what other teams subscribe to and
 * what every built-in destination renders. Its JSON Schema is `docs/schemas/diagnosis-run-finished.v1.json`.
 * NOTE: built by code from the stored run only: every field is a field of the run item (its status, stop reason,
 * error code, the published Draft and its verified citations, the FALLBACK report's system-written limitations,
 * usage). Text the model wrote (the Draft's conclusion and statements) is carried as text, never as structure, and
 * nothing of an unpublished Draft is ever included.
 * NOTE: over 300 lines on purpose: one versioned event, its schema and its one builder; every destination renders it.
 */
import type { RunUsage, StopReason } from '@diagnosis/core';
import type { EndedRunStatus, PublishedResult } from '@diagnosis/core/store';
import * as v from 'valibot';

export const RUN_FINISHED_SOURCE = 'diagnosis-agent';
export const RUN_FINISHED_DETAIL_TYPE = 'Diagnosis Run Finished';
const RUN_FINISHED_SCHEMA_VERSION = 1;

/** The release's vocabulary, which the event speaks: a run stored as SUCCEEDED is PUBLISHED. */
export const RESULT_STATUSES = Object.freeze(['PUBLISHED', 'FALLBACK', 'FAILED', 'CANCELLED'] as const);
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const RESULT_STATUS_OF_RUN: Readonly<Record<EndedRunStatus, ResultStatus>> = Object.freeze({
  SUCCEEDED: 'PUBLISHED',
  FALLBACK: 'FALLBACK',
  FAILED: 'FAILED',
  CANCELLED: 'CANCELLED',
});

/** What started the run: null for a run started through the API or the CLI. */
interface RunTrigger {
  /** `cloudwatch`, `alertmanager`, `pagerduty`, … */
  source: string;
  /** The incident the run belongs to, computed by code from the alarm or webhook. */
  incidentKey: string;
}

/**
 * The stored run's fields the event is built from: a `StoredRun` is one (the trigger is optional until every run
 * records it). Kept small and of its own so that the event does not change when the run item gains fields.
 */
export interface RunFinishedInput {
  runId: string;
  sessionId: string;
  enterpriseId: string;
  status: EndedRunStatus;
  query: string;
  stopReason: StopReason | null;
  errorCode: string | null;
  usage: RunUsage | null;
  publishedResult: PublishedResult | null;
  report: unknown;
  createdAt: string;
  endedAt: string | null;
  /** What the run item records of its trigger (issue #21's triggers); only `source` and `incidentKey` are read. */
  trigger?: unknown;
  /** The run continues its session: a follow-up question (absent: a first question). */
  continueSession?: boolean;
}

interface ResultCitation {
  toolCallId: string;
  toolName: string;
  /** The check answered READY with no rows: evidence of absence. */
  empty: boolean;
}

export interface ResultFinding {
  type: 'FINDING' | 'HYPOTHESIS' | 'NEGATIVE_OBSERVATION';
  statement: string;
  evidenceStatus: 'SUPPORTED' | 'NO_EVIDENCE';
  scope: string | null;
  citations: ResultCitation[];
}

/** One step of the published action plan: what to do, and why. */
interface ResultPlanStep {
  step: string;
  purpose: string;
}

/**
 * A past incident the run's lookups returned ("seen before"): a lead the agent looked at, never evidence. Dates and
 * the remembered verdict only; the past run is linked, never quoted.
 */
export interface ResultPastIncident {
  runId: string;
  occurredAt: string;
  rating: 'CORRECT' | 'PARTIALLY_CORRECT';
  link: string | null;
}

/** A change the published items name (the report's `changes`): what, when, where code placed it, its link. */
export interface ResultChange {
  changeId: string;
  at: string;
  service: string | null;
  kind: string;
  ref: string | null;
  summary: string;
  placement: 'BEFORE_WINDOW' | 'BEFORE_SYMPTOM' | 'AFTER_SYMPTOM' | null;
  /** Where a responder reads more: an `https:`/`http:` URL without spaces, `|`, `<` or `>`, else null. */
  url: string | null;
}

/** A price per million tokens (USD), from the stage file's `delivery.price`, to state a run's cost. */
export interface TokenPrice {
  input: number;
  cachedInput: number;
  output: number;
}

export interface RunFinishedDetail {
  schemaVersion: 1;
  runId: string;
  enterpriseId: string;
  sessionId: string;
  trigger: RunTrigger | null;
  status: ResultStatus;
  /** The run item's own status (SUCCEEDED for PUBLISHED). */
  runStatus: EndedRunStatus;
  stopReason: StopReason | null;
  errorCode: string | null;
  query: string;
  /** The published conclusion; null when the run abstained or published nothing. */
  conclusion: string | null;
  /** No conclusion was published (a Draft without one, or no published result at all). */
  abstained: boolean;
  /** The system's fixed text for a run that published nothing (FALLBACK, FAILED, CANCELLED); null when PUBLISHED. */
  message: string | null;
  findings: ResultFinding[];
  /** The published Draft's action plan, in order (empty when nothing was published). */
  actionPlan: ResultPlanStep[];
  /** The published Draft's recommendations (empty when nothing was published). */
  recommendations: string[];
  /** The run answers a follow-up question in its session. */
  followUp: boolean;
  /** Past incidents the run's lookups met, shown as leads (empty when none, and when nothing was published). */
  seenBefore: ResultPastIncident[];
  /** The changes the published items name, with their links (empty when none, and when nothing was published). */
  changes: ResultChange[];
  /**
   * Claims the SemanticGuard removed from the published Draft (findings, recommendations, plan steps), counted: their
   * limitation lines are left out of `limitations.missingInfo` (a run stored by an earlier version quoted the claim
   * there), so a removed claim is never sent.
   */
  removedClaims: number;
  limitations: { checkedScope: string[]; missingInfo: string[] };
  usage: {
    modelCalls: number;
    toolCalls: number;
    inputTokens: number;
    cachedInputTokens: number;
    outputTokens: number;
    totalTokens: number;
  } | null;
  cost: { currency: 'USD'; amount: number } | null;
  createdAt: string;
  endedAt: string | null;
  links: { run: string | null; audit: string | null };
}

/** The event as it is put on the bus (`PutEvents` entry fields, before EventBridge adds id, time, account…). */
export interface RunFinishedEvent {
  source: typeof RUN_FINISHED_SOURCE;
  detailType: typeof RUN_FINISHED_DETAIL_TYPE;
  detail: RunFinishedDetail;
}

/** The event as a subscriber receives it: EventBridge's envelope around the detail. */
export interface RunFinishedEnvelope {
  version: string;
  id: string;
  'detail-type': typeof RUN_FINISHED_DETAIL_TYPE;
  source: typeof RUN_FINISHED_SOURCE;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: RunFinishedDetail;
}

export interface RunFinishedOptions {
  /** The InternalApi's base URL (`https://…/`), for the links; null when unknown (local runs). */
  apiUrl?: string | null;
  price?: TokenPrice | null;
}

const systemTexts = v.pipe(v.array(v.pipe(v.string(), v.maxLength(1_000))), v.maxLength(20));
/** The FALLBACK/FAILED/CANCELLED report's fields the event reads: fixed texts the release wrote, never model text. */
const systemReportSchema = v.object({
  kind: v.picklist(['FALLBACK', 'FAILED', 'CANCELLED']),
  message: v.pipe(v.string(), v.maxLength(2_000)),
  limitations: v.optional(v.object({ checked_scope: systemTexts, missing_info: systemTexts })),
});

/** The published report's `seen_before` (PublishedReport): the fields the event reads, bounded. */
const seenBeforeSchema = v.object({
  seen_before: v.optional(
    v.pipe(
      v.array(
        v.object({
          run_id: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
          occurred_at: v.pipe(v.string(), v.maxLength(64)),
          rating: v.picklist(['CORRECT', 'PARTIALLY_CORRECT']),
        }),
      ),
      v.maxLength(20),
    ),
  ),
});

/** The published report's `changes` (PublishedReport): the fields the event reads, bounded. */
const changesSchema = v.object({
  changes: v.optional(
    v.pipe(
      v.array(
        v.object({
          change_id: v.pipe(v.string(), v.regex(/^chg_[a-z2-7]{12}$/)),
          at: v.pipe(v.string(), v.maxLength(64)),
          service: v.nullable(v.pipe(v.string(), v.maxLength(100))),
          kind: v.picklist(['deploy', 'config', 'flag', 'infra']),
          ref: v.nullable(v.pipe(v.string(), v.maxLength(200))),
          summary: v.pipe(v.string(), v.maxLength(1_000)),
          url: v.nullable(v.pipe(v.string(), v.maxLength(1_000))),
          placement: v.nullable(v.picklist(['BEFORE_WINDOW', 'BEFORE_SYMPTOM', 'AFTER_SYMPTOM'])),
        }),
      ),
      v.maxLength(20),
    ),
  ),
});

const removedIndexes = v.optional(v.pipe(v.array(v.number()), v.maxLength(100)), []);
/** The published report's `semantic_guard`: the analysis items, recommendations and plan steps the judge removed. */
const judgeReportSchema = v.object({
  semantic_guard: v.object({
    removed: removedIndexes,
    removed_recommendations: removedIndexes,
    removed_action_plan: removedIndexes,
  }),
});

function judgeRemovedOf(report: unknown): number {
  const parsed = v.safeParse(judgeReportSchema, report);
  if (!parsed.success) return 0;
  const judged = parsed.output.semantic_guard;
  return judged.removed.length + judged.removed_recommendations.length + judged.removed_action_plan.length;
}

/**
 * The limitations without the SemanticGuard's lines for removed claims: `applyVerdicts` puts one per removed item
 * first, each starting with its fixed words `语义校验（`, so the first `removed` lines that start so are left out.
 */
function withoutRemovedClaims(missing: readonly string[], removed: number): string[] {
  let skip = 0;
  while (skip < removed && skip < missing.length && (missing[skip] ?? '').startsWith('语义校验（')) skip += 1;
  return missing.slice(skip);
}

/** Builds the event of an ended run from its stored fields (see the module's NOTE). */
export function buildRunFinishedEvent(run: RunFinishedInput, options: RunFinishedOptions = {}): RunFinishedEvent {
  const status = RESULT_STATUS_OF_RUN[run.status];
  const published = run.status === 'SUCCEEDED' ? run.publishedResult : null;
  const report = published === null ? v.safeParse(systemReportSchema, run.report) : null;
  const systemReport = report?.success === true ? report.output : null;
  const draft = published?.draft ?? null;
  const conclusion = draft?.conclusion ?? null;
  const citationOf = new Map((published?.citations ?? []).map((citation) => [citation.tool_call_id, citation]));
  const findings: ResultFinding[] = (draft?.analysis ?? []).map((item) => ({
    type: item.type,
    statement: item.statement,
    evidenceStatus: item.evidence_status,
    scope: item.scope,
    // NOTE: only citations the EvidenceGuard verified (a published Draft cites nothing else).
    citations: item.tool_call_ids.flatMap((id) => {
      const citation = citationOf.get(id);
      return citation === undefined
        ? []
        : [{ toolCallId: citation.tool_call_id, toolName: citation.tool_name, empty: citation.empty }];
    }),
  }));
  const stated = draft?.limitations ?? systemReport?.limitations ?? { checked_scope: [], missing_info: [] };
  // NOTE: a claim the judge removed never leaves as text: its line (which quoted it in runs stored by earlier
  // versions) is counted, not carried.
  const removedClaims = published === null ? 0 : judgeRemovedOf(run.report);
  const limitations = { ...stated, missing_info: withoutRemovedClaims(stated.missing_info, removedClaims) };
  const usage = run.usage;
  const base = options.apiUrl?.replace(/\/+$/, '') ?? null;
  const linkOf = (runId: string) => (base === null ? null : `${base}/runs/${encodeURIComponent(runId)}`);
  const runLink = linkOf(run.runId);
  // NOTE: past incidents only of a published run (the release writes them into the published report alone).
  const seen = published === null ? null : v.safeParse(seenBeforeSchema, run.report);
  const seenBefore = (seen?.success === true ? (seen.output.seen_before ?? []) : []).map((past) => ({
    runId: past.run_id,
    occurredAt: past.occurred_at,
    rating: past.rating,
    link: linkOf(past.run_id),
  }));
  // NOTE: changes only of a published run; a link only when it cannot break a chat's link syntax.
  const cited = published === null ? null : v.safeParse(changesSchema, run.report);
  const changes = (cited?.success === true ? (cited.output.changes ?? []) : []).map((change) => ({
    changeId: change.change_id,
    at: change.at,
    service: change.service,
    kind: change.kind,
    ref: change.ref,
    summary: change.summary,
    placement: change.placement,
    url: change.url !== null && /^https?:\/\/[^\s|<>]+$/.test(change.url) ? change.url : null,
  }));
  return {
    source: RUN_FINISHED_SOURCE,
    detailType: RUN_FINISHED_DETAIL_TYPE,
    detail: {
      schemaVersion: RUN_FINISHED_SCHEMA_VERSION,
      runId: run.runId,
      enterpriseId: run.enterpriseId,
      sessionId: run.sessionId,
      trigger: triggerOf(run.trigger),
      status,
      runStatus: run.status,
      stopReason: run.stopReason,
      errorCode: run.errorCode,
      query: run.query,
      conclusion,
      abstained: conclusion === null,
      message: published === null ? (systemReport?.message ?? null) : null,
      findings,
      actionPlan: (draft?.action_plan ?? []).map((item) => ({ step: item.step, purpose: item.purpose })),
      recommendations: [...(draft?.recommendations ?? [])],
      followUp: run.continueSession === true,
      seenBefore,
      changes,
      removedClaims,
      limitations: { checkedScope: [...limitations.checked_scope], missingInfo: [...limitations.missing_info] },
      usage:
        usage === null
          ? null
          : {
              modelCalls: usage.modelCalls,
              toolCalls: usage.toolCalls,
              inputTokens: usage.inputTokens,
              cachedInputTokens: usage.cachedInputTokens,
              outputTokens: usage.outputTokens,
              totalTokens: usage.totalTokens,
            },
      cost: usage === null || !options.price ? null : { currency: 'USD', amount: costOf(usage, options.price) },
      createdAt: run.createdAt,
      endedAt: run.endedAt,
      links: { run: runLink, audit: runLink === null ? null : `${runLink}/audit` },
    },
  };
}

const triggerSchema = v.object({
  source: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  incidentKey: v.pipe(v.string(), v.minLength(1), v.maxLength(1_024)),
});

/**
 * The trigger as the event states it: the source and incident key of a run item's trigger, bounded plain strings;
 * null for a run started through the API (or a trigger of another shape). Other fields of the item's trigger are not
 * part of schema version 1.
 */
function triggerOf(trigger: unknown): RunTrigger | null {
  const parsed = v.safeParse(triggerSchema, trigger);
  return parsed.success ? { source: parsed.output.source, incidentKey: parsed.output.incidentKey } : null;
}

/** USD for a run's tokens, rounded to a millionth of a dollar (cached input counted at its own price). */
export function costOf(
  usage: Pick<RunUsage, 'inputTokens' | 'cachedInputTokens' | 'outputTokens'>,
  price: TokenPrice,
): number {
  const cached = Math.min(usage.cachedInputTokens, usage.inputTokens);
  const dollars =
    ((usage.inputTokens - cached) * price.input + cached * price.cachedInput + usage.outputTokens * price.output) / 1e6;
  return Math.round(dollars * 1e6) / 1e6;
}

/** The envelope EventBridge wraps around the detail (the webhook's body has exactly this shape). */
export function envelopeOf(
  event: RunFinishedEvent,
  meta: { id: string; time: string; account: string; region: string },
): RunFinishedEnvelope {
  return {
    version: '0',
    id: meta.id,
    'detail-type': event.detailType,
    source: event.source,
    account: meta.account,
    time: meta.time,
    region: meta.region,
    resources: [],
    detail: event.detail,
  };
}
