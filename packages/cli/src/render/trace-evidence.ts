/**
 * The evidence behind a run's citations and the cause of a run that did not succeed, as the trace shows them: text
 * lines for the timeline and HTML for the page (one collapsible block per citation). Built from `RunEvidence` only
 * (see `buildRunEvidence` in core): what the model saw, never the adapters' raw data or an exception's text.
 */
import type { CitationEvidence, ModelFailureReport, RunEvidence, RunFailureCause } from '@diagnosis/core';
import { explainOutcome, statusWord } from './outcome-words.ts';
import { describeStop, evidenceLines } from './render-report.ts';
import { SCRIPTED_JUDGE_MODEL_ID, scriptedMark } from './scripted-judge.ts';

/**
 * The page's font stacks. NOTE: Chinese needs a CJK font; a stock Debian machine has none, and Chromium then draws
 * boxes. The stacks name the common CJK fonts of each platform (Debian: `apt-get install fonts-noto-cjk`).
 */
export const PAGE_FONT_STACK =
  'system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", "PingFang SC", "Microsoft YaHei", sans-serif';
export const PAGE_MONO_FONT_STACK =
  'ui-monospace, SFMono-Regular, Menlo, "Noto Sans Mono CJK SC", "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", "PingFang SC", "Microsoft YaHei", monospace';

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** `HTTP 401 · APICallError`, `CONNECTION · APICallError · ECONNREFUSED`: identifiers only. */
function modelFailureText(failure: ModelFailureReport): string {
  const status = failure.http_status === null ? null : `HTTP ${failure.http_status}`;
  const parts = [failure.kind === 'HTTP' ? null : failure.kind, status, failure.error_class, failure.network_code];
  return parts.filter((part) => part !== null).join(' · ');
}

/** The cause of a run that did not succeed, in one line: status, code, stop, the model endpoint's failure. */
function causeLine(cause: RunFailureCause): string {
  const parts = [
    statusWord(cause.status),
    cause.error_code,
    cause.stop_reason === null ? null : `stop ${describeStop(cause.stop_reason, cause.collection_stop_reason)}`,
    cause.model_failure === null ? null : `model endpoint ${modelFailureText(cause.model_failure)}`,
  ].filter((part) => part !== null);
  return parts.join(' · ');
}

/** The timeline's lines for the cause and the evidence: all of each observation, as stored (bounded). */
export function renderEvidenceText(evidence: RunEvidence, scriptedJudge = false): string[] {
  const lines: string[] = [];
  if (evidence.failure !== null) {
    lines.push('', `cause: ${causeLine(evidence.failure)}`);
    const why = explainOutcome(evidence.failure.error_code, evidence.failure.stop_reason);
    if (why !== null) lines.push(`  why: ${why}`);
    if (evidence.failure.message !== null) lines.push(`  ${evidence.failure.message}`);
    if (evidence.failure.reason !== null) lines.push(`  ${evidence.failure.reason}`);
  }
  if (evidence.citations.length > 0) {
    const verified = evidence.citations.every((citation) => citation.verified);
    lines.push('', verified ? 'evidence behind the citations:' : 'evidence the Draft cited (not published):');
    for (const citation of evidence.citations) lines.push(...traceEvidenceLines(citation, scriptedJudge));
    if (evidence.omitted > 0) lines.push(`  … ${evidence.omitted} more citations not shown`);
  }
  return lines;
}

/** How wide the trace's observation lines are (a terminal of 120 columns shows them unbroken). */
export const TRACE_WRAP_COLUMNS = 110;

/**
 * One citation for the trace: the report's lines, with the observation pretty-printed (when it is JSON) and wrapped
 * at {@link TRACE_WRAP_COLUMNS}, indented under its heading, instead of one line of several KB.
 */
function traceEvidenceLines(citation: CitationEvidence, scriptedJudge: boolean): string[] {
  const lines = evidenceLines(citation, 0, scriptedJudge);
  const at = lines.findIndex((line) => line.startsWith('    observation ('));
  const observation = citation.observation;
  if (at === -1 || observation === null) return lines;
  const heading = (lines[at] ?? '').replace(/: .*$/, ':');
  const note = citation.observation_truncated ? ['      …(cut: not all of it is stored or shown)'] : [];
  const body = wrapLines(prettyJson(observation, citation.observation_truncated), TRACE_WRAP_COLUMNS - 6).map(
    (line) => `      ${line}`,
  );
  return [...lines.slice(0, at), heading, ...body, ...note, ...lines.slice(at + 1)];
}

/** A JSON text indented by two, or the text as it is when it does not parse (or was cut). */
function prettyJson(text: string, truncated = false): string {
  if (truncated) return text;
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/**
 * Lines of at most `width` characters: each line of the text, broken at the last space or comma before the width
 * when there is one in its second half, else at the width. A broken line's rest keeps the line's own indentation.
 */
export function wrapLines(text: string, width: number): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const indent = /^\s*/.exec(line)?.[0] ?? '';
    let rest = line;
    let prefix = '';
    while ([...prefix, ...rest].length > width) {
      const room = Math.max(1, width - prefix.length);
      const chars = [...rest];
      const head = chars.slice(0, room).join('');
      const cut = Math.max(head.lastIndexOf(' '), head.lastIndexOf(','));
      const take = cut >= room / 2 ? cut + 1 : room;
      out.push(`${prefix}${chars.slice(0, take).join('').trimEnd()}`);
      rest = chars.slice(take).join('').trimStart();
      prefix = `${indent}  `;
    }
    out.push(`${prefix}${rest}`);
  }
  return out;
}

/**
 * Why a chart or the timeline of a run is empty. NOTE: the cause itself is said once, in the cause block (the page)
 * or the cause lines (the timeline); here only that there is no round, and where to read why.
 */
export function emptyReason(evidence: RunEvidence, status: string, causeIs: 'above' | 'below' = 'above'): string {
  if (evidence.failure === null) {
    return status === 'QUEUED' || status === 'RUNNING'
      ? `No model round is recorded yet: the run is ${status}.`
      : 'No model round is recorded for this run.';
  }
  return `No model round completed (the cause is given ${causeIs}).`;
}

/** The cause block of the page, for a run that did not succeed (empty for one that did). */
export function renderCauseHtml(evidence: RunEvidence): string {
  const cause = evidence.failure;
  if (cause === null) return '';
  const rows = [
    ['status', statusWord(cause.status)],
    ['error code', cause.error_code],
    ['stop reason', cause.stop_reason === null ? null : describeStop(cause.stop_reason, cause.collection_stop_reason)],
    ['model endpoint', cause.model_failure === null ? null : modelFailureText(cause.model_failure)],
    ['why', explainOutcome(cause.error_code, cause.stop_reason)],
    ['message', cause.message],
    ['reason', cause.reason],
  ].filter((row): row is [string, string] => row[1] !== null);
  return `<section class="cause" id="cause"><h2>Why this run did not publish a diagnosis</h2><div class="facts">
${rows.map(([name, value]) => `  <span class="muted">${escapeHtml(name)}</span><span>${escapeHtml(value)}</span>`).join('\n')}
</div></section>`;
}

/** The anchor of a citation's block on the page (by position: a tool call id is the model's text). */
export const evidenceAnchor = (index: number) => `evidence-${index + 1}`;

/** One collapsible block per citation: the summary line, then the input and the observation the model saw. */
export function renderEvidenceHtml(evidence: RunEvidence, scriptedJudge = false): string {
  if (evidence.citations.length === 0) return '';
  const verified = evidence.citations.every((citation) => citation.verified);
  const title = verified ? 'Evidence behind the citations' : 'Evidence the Draft cited (not published)';
  const blocks = evidence.citations.map((citation, index) => citationHtml(citation, index, scriptedJudge)).join('\n');
  const omitted = evidence.omitted > 0 ? `<p class="muted">… ${evidence.omitted} more citations not shown</p>` : '';
  return `<h2>${title}</h2>
<p class="muted">For each check the report cites: what the agent asked (canonical input) and the observation it saw, exactly as audited.</p>
${scriptedJudge ? `<p class="muted" id="scripted-judge">The judge's verdicts here are SCRIPTED: hand-written (${SCRIPTED_JUDGE_MODEL_ID}), not a model's judgement.</p>\n` : ''}${blocks}${omitted}`;
}

function citationHtml(citation: CitationEvidence, index: number, scriptedJudge: boolean): string {
  const mark = scriptedMark(scriptedJudge);
  const chips = [
    citation.found ? '' : '<span class="chip bad">not in this run’s audit</span>',
    citation.disposition === null || citation.disposition === 'EXECUTED'
      ? ''
      : `<span class="chip bad">${escapeHtml(`${citation.disposition} ${citation.code ?? ''}`.trim())}</span>`,
    citation.evaluation === null
      ? ''
      : `<span class="chip">agent ${escapeHtml(citation.evaluation === 'PENDING' ? 'not judged' : citation.evaluation)}</span>`,
    ...citation.verdicts.map(
      (verdict) =>
        `<span class="chip ${verdict.verdict === 'SUPPORTED' ? 'ok' : 'warn'}" title="${escapeHtml(verdict.reason)}">judge #${verdict.analysis_index + 1} ${escapeHtml(verdict.verdict)}${mark}${verdict.removed ? ' · removed' : ''}</span>`,
    ),
  ].join(' ');
  const body = citation.found
    ? `<h4>input</h4>${preBlock(citation.input, citation.input_truncated)}
  <h4>observation the model saw</h4>${preBlock(citation.observation, citation.observation_truncated)}
  ${citation.verdicts.map((verdict) => `<p class="cite">judge on finding ${verdict.analysis_index + 1}: ${escapeHtml(verdict.verdict)}${mark} — ${escapeHtml(verdict.reason)}</p>`).join('')}`
    : '<p class="muted">The Draft cites an id that no tool call of this run had.</p>';
  return `<details class="evidence" id="${evidenceAnchor(index)}"><summary><code>${escapeHtml(citation.tool_call_id)}</code> ${escapeHtml(citation.summary)} ${chips}</summary>
  ${body}</details>`;
}

/** A JSON text pretty-printed when it parses, else as it is; a cut is said. */
function preBlock(text: string | null, truncated: boolean): string {
  if (text === null) return '<p class="muted">none recorded</p>';
  const shown = prettyJson(text, truncated);
  const cut = truncated ? '<p class="muted">cut: not all of it is stored or shown</p>' : '';
  return `<pre>${escapeHtml(shown)}</pre>${cut}`;
}
