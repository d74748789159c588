// NOTE: over 300 lines on purpose: one report in the terminal: each outcome (published, failed, fallback) and its hints
// over one set of shared renderers.
import { STATUS_CODES } from 'node:http';
import type {
  CitationEvidence,
  DiagnosisResult,
  FailedReport,
  FallbackReport,
  ModelFailureReport,
  PublishedReport,
  RunEvidence,
  SemanticGuardReport,
} from '@diagnosis/core';
import { CITED_CHANGES_HEADING, changeLink, describeCitedChange } from './describe-cited-change.ts';
import { describeSeenBefore, SEEN_BEFORE_HEADING, SEEN_BEFORE_NOTE } from './describe-seen-before.ts';
import { explainOutcome, statusWord } from './outcome-words.ts';
import { hasScriptedJudge, SCRIPTED_JUDGE_MODEL_ID, scriptedMark } from './scripted-judge.ts';

/** What the renderer knows of the local settings, to say what to check: never a key, never a URL's path. */
export interface RenderContext {
  /** DIAGNOSIS_MODEL_BASE_URL as configured; only its host is ever shown. */
  modelBaseUrl?: string;
  /** The per-request model time limit the run had (DIAGNOSIS_MODEL_TIMEOUT_MS). */
  modelTimeoutMs?: number;
  /** SEMANTIC_GUARD_MODEL_BASE_URL as configured (the judge's endpoint); only its host is ever shown. */
  judgeBaseUrl?: string;
}

/** The settings a failed model request points to: the agent's, or the judge's. */
interface ModelSettingNames {
  /** How the endpoint is called in a hint. */
  endpoint: string;
  apiKey: string;
  baseUrl: string;
  modelId: string;
  timeout: string;
}

const AGENT_SETTINGS: ModelSettingNames = {
  endpoint: 'the model endpoint',
  apiKey: 'DIAGNOSIS_MODEL_API_KEY',
  baseUrl: 'DIAGNOSIS_MODEL_BASE_URL',
  modelId: 'DIAGNOSIS_MODEL_ID',
  timeout: 'DIAGNOSIS_MODEL_TIMEOUT_MS',
};

/** The judge's settings: each defaults to the agent's (docs/settings.md). */
const JUDGE_SETTINGS: ModelSettingNames = {
  endpoint: 'the judge’s endpoint',
  apiKey: 'SEMANTIC_GUARD_MODEL_API_KEY (default: the agent’s DIAGNOSIS_MODEL_API_KEY)',
  baseUrl: 'SEMANTIC_GUARD_MODEL_BASE_URL (default: the agent’s)',
  modelId: 'SEMANTIC_GUARD_MODEL_ID',
  timeout: 'the judge’s time limit',
};

/**
 * The result of a run as a person reads it: conclusion, findings with their evidence, plan, limits; with the run's
 * `evidence` (see `loadRunEvidence`), what each cited check asked and what the model saw.
 */
export function renderReport(result: DiagnosisResult, context: RenderContext = {}, evidence?: RunEvidence): string {
  const lines: string[] = [];
  const usage = result.usage;
  if (result.report.kind === 'DIAGNOSIS') renderPublished(result.report, lines, context);
  else if (result.report.kind === 'FALLBACK') renderFallback(result.report, lines, context);
  else if (result.report.kind === 'CANCELLED') lines.push('诊断已取消 (CANCELLED)', `  ${result.report.message}`);
  else renderFailed(result.report, context, lines);
  if (evidence !== undefined) renderEvidence(evidence, lines, hasScriptedJudge(result.report));
  lines.push(
    '',
    `run ${result.runId}   status ${statusWord(result.status)}${result.stopReason === null ? '' : `   stop ${describeStop(result.stopReason, result.collectionStopReason)}`}`,
    `model calls ${usage.modelCalls}   tool calls ${usage.toolCalls}   tokens ${usage.totalTokens.toLocaleString('en')} (${usage.inputTokens.toLocaleString('en')} in / ${usage.outputTokens.toLocaleString('en')} out)${estimatedNote(usage.estimatedTokenRounds)}`,
  );
  return lines.join('\n');
}

/** Says how many rounds' tokens are estimates (the provider reported no usage for them); nothing when none are. */
export function estimatedNote(rounds: number | undefined): string {
  if (rounds === undefined || rounds === 0) return '';
  return `, estimated for ${rounds} round${rounds === 1 ? '' : 's'} without provider usage`;
}

/**
 * A stop reason with the collection's own when it differs: `STOP_IGNORED (collection stopped: TOOL_CALL_BUDGET)`, so
 * neither is lost in a report or a trace.
 */
export function describeStop(stopReason: string, collectionStopReason?: string | null): string {
  return collectionStopReason === undefined || collectionStopReason === null || collectionStopReason === stopReason
    ? stopReason
    : `${stopReason} (collection stopped: ${collectionStopReason})`;
}

function renderPublished(report: PublishedReport, lines: string[], context: RenderContext = {}): void {
  const { draft, citations } = report;
  const tools = new Map(citations.map((citation) => [citation.tool_call_id, citation]));
  lines.push('━━ 诊断结论 Diagnosis ━━');
  lines.push(draft.conclusion === null ? '没有结论：现有证据不足以支撑诊断 (no conclusion)' : draft.conclusion);
  if (draft.analysis.length > 0) {
    lines.push('', '发现与证据 Findings');
    draft.analysis.forEach((item, index) => {
      lines.push(`  ${index + 1}. [${item.type} · ${item.evidence_status}] ${item.statement}`);
      if (item.scope !== null) lines.push(`     范围: ${item.scope}`);
      const evidence = item.tool_call_ids.map((id) => {
        const citation = tools.get(id);
        return citation === undefined ? id : `${citation.tool_name} ${id}${citation.empty ? '（无结果）' : ''}`;
      });
      lines.push(`     证据: ${evidence.join('; ')}`);
    });
  }
  if (draft.action_plan.length > 0) {
    lines.push('', '行动计划 Action plan');
    for (const [index, step] of draft.action_plan.entries())
      lines.push(`  ${index + 1}. ${step.step} — ${step.purpose}`);
  }
  if (draft.recommendations.length > 0) {
    lines.push('', '建议 Recommendations');
    for (const recommendation of draft.recommendations) lines.push(`  - ${recommendation}`);
  }
  if (report.seen_before !== undefined && report.seen_before.length > 0) {
    lines.push('', `${SEEN_BEFORE_HEADING} (${SEEN_BEFORE_NOTE})`);
    for (const item of report.seen_before) lines.push(`  - ${describeSeenBefore(item)}`);
  }
  if (report.changes !== undefined && report.changes.length > 0) {
    lines.push('', CITED_CHANGES_HEADING);
    for (const change of report.changes) {
      const link = changeLink(change);
      lines.push(`  - ${describeCitedChange(change)}`, ...(link === null ? [] : [`    ${link}`]));
    }
  }
  renderLimitations(draft.limitations, lines);
  if (report.semantic_guard !== undefined) renderSemanticGuard(report.semantic_guard, lines, context);
}

const FAILURE_TEXT: Record<string, string> = {
  NO_TIME: 'too little of the run’s time was left to ask the judge',
  PROMPT_TOO_LARGE: 'the judge’s input would not fit its token budget',
  TIMEOUT: 'the judge did not answer within its time',
  TOKEN_BUDGET: 'the judge used more tokens than its budget',
  MODEL_FAILED: 'the judge’s model call failed',
  INVALID_OUTPUT: 'the judge’s answer was not valid verdicts',
  AUDIT_FAILED: 'the judge’s call could not be audited',
  CANCELLED: 'the run was cancelled while the judge was asked',
};

/** The SemanticGuard's verdicts, one line per claim, with the judge's reason; or why it gave none. */
function renderSemanticGuard(guard: SemanticGuardReport, lines: string[], context: RenderContext = {}): void {
  const scripted = guard.model_id === SCRIPTED_JUDGE_MODEL_ID;
  const judge = scripted
    ? `judge ${guard.model_id}: SCRIPTED, hand-written verdicts, not a model's judgement`
    : `judge ${guard.model_id}`;
  lines.push('', `语义校验 SemanticGuard (${guard.mode}, ${judge})`);
  if (guard.outcome === 'FAILED') {
    const effect = guard.mode === 'enforce' ? 'nothing unchecked was published' : 'shadow mode: published unchanged';
    lines.push(`  未完成 ${guard.failure}: ${FAILURE_TEXT[guard.failure ?? ''] ?? guard.failure} (${effect})`);
    // NOTE: the judge's failed request explained as the agent's are: its status and which setting to check.
    const failure = guard.model_failure;
    if (failure !== undefined) {
      lines.push(`  judge endpoint: ${describeModelFailure(failure)}`);
      lines.push(`  检查 Check: ${modelFailureHint(failure, judgeContext(context), JUDGE_SETTINGS)}`);
    }
    return;
  }
  const mark = scriptedMark(scripted);
  if (guard.conclusion !== null)
    lines.push(`  结论 conclusion: ${guard.conclusion.verdict}${mark} — ${guard.conclusion.reason}`);
  for (const item of guard.analysis) {
    const removed = guard.removed.includes(item.index) ? '  [已移除 removed]' : '';
    lines.push(`  分析 ${item.index + 1}: ${item.verdict}${mark} — ${item.reason}${removed}`);
  }
}

function renderFailed(report: FailedReport, context: RenderContext, lines: string[]): void {
  lines.push('诊断失败 (FAILED)', `  ${report.message}`, `  错误码: ${report.error_code}`);
  const why = explainOutcome(report.error_code, null);
  if (why !== null && failureOf(report) === undefined) lines.push(`  why: ${why}`);
  const failure = failureOf(report);
  if (failure === undefined) return;
  lines.push(`  模型服务 Model endpoint: ${describeModelFailure(failure)}`);
  lines.push(`  检查 Check: ${modelFailureHint(failure, context)}`);
}

/** The judge's endpoint in the agent's place: SEMANTIC_GUARD_MODEL_BASE_URL, else the agent's (its default). */
function judgeContext(context: RenderContext): RenderContext {
  const { judgeBaseUrl, modelBaseUrl, ...rest } = context;
  const url = judgeBaseUrl ?? modelBaseUrl;
  return url === undefined ? rest : { ...rest, modelBaseUrl: url };
}

/** `HTTP 401 · APICallError`: a failed request's kind, status, class and network code. */
function describeModelFailure(failure: ModelFailureReport): string {
  return [
    failure.kind === 'HTTP' ? null : failure.kind,
    failure.http_status === null ? null : `HTTP ${failure.http_status}`,
    failure.error_class,
    failure.network_code,
  ]
    .filter((part) => part !== null)
    .join(' · ');
}

/**
 * What to check for a failed model request, from its kind, status and network code only. NOTE: the endpoint is named
 * by its host (from the settings), never by a path, a query or a key; nothing the endpoint sent is shown.
 */
function modelFailureHint(
  failure: ModelFailureReport,
  context: RenderContext = {},
  names: ModelSettingNames = AGENT_SETTINGS,
): string {
  const host = hostOf(context.modelBaseUrl);
  const at = host === null ? 'the model endpoint' : host;
  switch (failure.kind) {
    case 'HTTP':
      return httpHint(
        failure.http_status ?? 0,
        names === AGENT_SETTINGS || host === null ? names.endpoint : `${names.endpoint} ${host}`,
        names,
      );
    case 'TIMEOUT': {
      const seconds = context.modelTimeoutMs === undefined ? 'the time limit' : `${context.modelTimeoutMs / 1_000} s`;
      return `no answer within ${seconds} (${names.timeout}): check that ${at} is up; raise the limit only if the model is merely slow`;
    }
    case 'CONNECTION':
      return connectionHint(failure.network_code, at, names);
    case 'INVALID_RESPONSE':
      return `${at} answered ${failure.http_status ?? ''} but not with an OpenAI-compatible chat completion (${failure.error_class}): check that ${names.baseUrl} is the API's base URL (for DeepSeek …/v1)`;
    default:
      return `the model call failed (${failure.error_class}): check ${names.baseUrl}, ${names.modelId} and ${names.apiKey}`;
  }
}

function httpHint(status: number, endpoint: string, names: ModelSettingNames): string {
  const answered = `${endpoint} answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd();
  if (status === 401) return `${answered}: check ${names.apiKey}`;
  if (status === 403) return `${answered}: the key may not use this model; check ${names.apiKey} and ${names.modelId}`;
  if (status === 402) return `${answered}: the account's balance or quota is used up`;
  if (status === 404) return `${answered}: check ${names.baseUrl} (for DeepSeek …/v1) and ${names.modelId}`;
  if (status === 429) return `${answered}: rate limited (or out of quota); wait and run again`;
  if (status >= 500) return `${answered}: the model service failed; try again later`;
  if (status >= 400)
    return `${answered}: the request was refused; check ${names.modelId} and that the server is OpenAI-compatible`;
  return answered;
}

function connectionHint(code: string | null, at: string, names: ModelSettingNames): string {
  if (code === 'ECONNREFUSED')
    return `connection refused at ${at}: is the model server running? check ${names.baseUrl}`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `${at} could not be resolved (${code}): check ${names.baseUrl} and DNS`;
  if (code !== null && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return `TLS with ${at} failed (${code}): check the endpoint's certificate`;
  if (code === 'ECONNRESET') return `the connection to ${at} was reset (${code}); try again`;
  return `could not connect to ${at}${code === null ? '' : ` (${code})`}: check ${names.baseUrl} and the network`;
}

/** The host (and port) of a URL: never its path, query, or user info. */
function hostOf(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    return new URL(url).host || null;
  } catch {
    return null;
  }
}

/** How much of an observation the terminal report prints; the trace and `--json` carry all of it. */
export const OBSERVATION_PREVIEW_CHARS = 400;

/**
 * The evidence behind each cited check: one line of what was asked and what came back, the canonical input, the
 * start of the observation the model saw, and how the agent and the judge rated it.
 */
function renderEvidence(evidence: RunEvidence, lines: string[], scriptedJudge: boolean): void {
  if (evidence.citations.length === 0) return;
  const verified = evidence.citations.every((citation) => citation.verified);
  lines.push(
    '',
    verified
      ? '证据 Evidence (what each cited check asked, and what the model saw)'
      : '草稿引用的证据 Evidence the Draft cited (not published)',
  );
  for (const citation of evidence.citations)
    lines.push(...evidenceLines(citation, OBSERVATION_PREVIEW_CHARS, scriptedJudge));
  if (evidence.omitted > 0) lines.push(`  … ${evidence.omitted} more citations not shown`);
}

/** One citation's evidence as indented lines; `previewChars` bounds the observation (null: all of it, as stored). */
export function evidenceLines(
  citation: CitationEvidence,
  previewChars: number | null,
  scriptedJudge = false,
): string[] {
  const lines = [`  ${citation.tool_call_id}  ${citation.summary}`];
  if (!citation.found) return lines;
  const state = [citation.disposition, citation.status, citation.code].filter((part) => part !== null).join(' ');
  if (citation.input !== null) {
    lines.push(`    input: ${citation.input}${citation.input_truncated ? ' …(cut)' : ''}`);
  }
  const observation = citation.observation;
  if (observation === null) lines.push('    observation: none recorded');
  else {
    const shown = previewChars === null ? observation : observation.slice(0, previewChars);
    const bytes = Buffer.byteLength(observation, 'utf8').toLocaleString('en');
    const note =
      shown.length < observation.length
        ? ` …(first ${previewChars} characters of ${bytes} bytes; all of it: --json or npm run trace)`
        : citation.observation_truncated
          ? ' …(cut: not all of it is stored or shown)'
          : '';
    lines.push(`    observation (${state}): ${shown}${note}`);
  }
  const rated = [
    citation.evaluation === null
      ? null
      : `agent ${citation.evaluation === 'PENDING' ? 'did not judge it (the Draft came next)' : citation.evaluation}`,
    ...citation.verdicts.map(
      (verdict) =>
        `judge 分析 ${verdict.analysis_index + 1}: ${verdict.verdict}${scriptedMark(scriptedJudge)}${verdict.removed ? ' [已移除 removed]' : ''}`,
    ),
  ].filter((part) => part !== null);
  if (rated.length > 0) lines.push(`    ${rated.join(' · ')}`);
  return lines;
}

const failureOf = (report: FailedReport) => report.model_failure;

function renderFallback(report: FallbackReport, lines: string[], context: RenderContext = {}): void {
  lines.push(`━━ ${report.title} (FALLBACK) ━━`, report.message, `原因: ${report.reason}`);
  const codes = [
    report.error_code === undefined ? null : `code ${report.error_code}`,
    report.stop_reason === null ? null : `stop ${report.stop_reason}`,
  ].filter((part) => part !== null);
  const why = explainOutcome(report.error_code, report.stop_reason);
  if (codes.length > 0) lines.push(`${codes.join(' · ')}${why === null ? '' : `: ${why}`}`);
  renderLimitations(report.limitations, lines);
  if (report.semantic_guard !== undefined) renderSemanticGuard(report.semantic_guard, lines, context);
}

function renderLimitations(limitations: { checked_scope: string[]; missing_info: string[] }, lines: string[]): void {
  lines.push('', '限制 Limitations');
  for (const scope of limitations.checked_scope) lines.push(`  已检查: ${scope}`);
  for (const missing of limitations.missing_info) lines.push(`  缺少: ${missing}`);
  if (limitations.checked_scope.length + limitations.missing_info.length === 0) lines.push('  (none)');
}
