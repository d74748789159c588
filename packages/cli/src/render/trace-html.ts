import { type DiagnosisReport, describeStoredToolCall, type RunEvidence } from '@diagnosis/core';
import type { IncidentEventRecord } from '@diagnosis/core/store';
import { CITED_CHANGES_HEADING, changeLink, describeCitedChange } from './describe-cited-change.ts';
import { describeSeenBefore, SEEN_BEFORE_HEADING, SEEN_BEFORE_NOTE } from './describe-seen-before.ts';
import type { RunTrace } from './load-run-trace.ts';
import { statusWord } from './outcome-words.ts';
import { describeProcessScorecard } from './process-summary.ts';
import { describeStop } from './render-report.ts';
import { hasScriptedJudge } from './scripted-judge.ts';
import {
  emptyReason,
  escapeHtml,
  evidenceAnchor,
  PAGE_FONT_STACK,
  PAGE_MONO_FONT_STACK,
  renderCauseHtml,
  renderEvidenceHtml,
} from './trace-evidence.ts';
import { elapsedMs, formatCount, formatSeconds, judgedEvaluations, toolOutcome } from './trace-reading.ts';

/**
 * The run as one self-contained HTML page (no script, no external resource): its facts, the cause of a run that did
 * not publish, the budget used per round, the timeline, the report and the evidence behind its citations.
 */
export function renderHtml(
  trace: RunTrace,
  incidentEvents: readonly IncidentEventRecord[] = trace.incidentEvents ?? [],
): string {
  const { run } = trace;
  const judged = judgedEvaluations(trace);
  const status = run.status;
  const shownStatus = statusWord(status);
  const color =
    status === 'SUCCEEDED'
      ? '#1a7f37'
      : status === 'FALLBACK'
        ? '#9a6700'
        : status === 'FAILED'
          ? '#cf222e'
          : '#57606a';
  const rounds = trace.steps.map((step) => ({
    step,
    tokens: step.inputTokens + step.outputTokens,
    duration: elapsedMs(step.startedAt, step.endedAt),
    tools: trace.tools.filter((tool) => tool.stepNumber === step.stepNumber),
  }));
  const budgetTokens = run.limits?.maxTotalTokens ?? Math.max(1, ...rounds.map((round) => round.tokens));
  const budgetMs =
    run.deadlineAt === null
      ? Math.max(1, elapsedMs(run.createdAt, run.endedAt))
      : Math.max(1, elapsedMs(run.createdAt, run.deadlineAt));
  let cumulativeTokens = 0;
  const bars = rounds.map((round) => {
    cumulativeTokens += round.tokens;
    return { ...round, cumulativeTokens, elapsed: elapsedMs(run.createdAt, round.step.endedAt) };
  });
  const chartWidth = Math.max(320, bars.length * 70 + 60);
  const runMs = Math.max(
    1,
    elapsedMs(run.createdAt, run.endedAt ?? bars.at(-1)?.step.endedAt ?? run.createdAt),
    ...bars.map((item) => item.elapsed),
  );
  const bar = (index: number, share: number, fill: string, title: string, caption = `${Math.round(share * 100)}%`) => {
    const height = Math.max(1, Math.round(Math.min(1, share) * 120));
    const x = 50 + index * 70;
    return `<rect x="${x}" y="${140 - height}" width="26" height="${height}" fill="${fill}"><title>${escapeHtml(title)}</title></rect><text x="${x - 4}" y="${134 - height}" class="axis">${escapeHtml(caption)}</text>`;
  };
  // NOTE: the captions are HTML (they wrap), not SVG text: an SVG text is cut at the SVG's width.
  const figure = (caption: string, label: string, items: string[]) =>
    items.length === 0
      ? `<figure class="chart"><figcaption>${escapeHtml(caption)}</figcaption><p class="empty">${escapeHtml(emptyReason(trace.evidence, status))}</p></figure>`
      : `<figure class="chart"><figcaption>${escapeHtml(caption)}</figcaption><svg role="img" aria-label="${escapeHtml(label)}" width="${chartWidth}" height="164" viewBox="0 0 ${chartWidth} 164">
  <line x1="40" y1="140" x2="${chartWidth - 10}" y2="140" stroke="#d0d7de"/>
  ${items.join('\n  ')}
  ${bars.map((item, index) => `<text x="${50 + index * 70}" y="158" class="axis">R${item.step.stepNumber}</text>`).join('')}
</svg></figure>`;
  const chart =
    bars.length === 0
      ? `<p class="empty">${escapeHtml(emptyReason(trace.evidence, status))}</p>`
      : [
          figure(
            `Tokens used, cumulative (share of the budget, ${formatCount(budgetTokens)})`,
            'tokens used per round',
            bars.map((item, index) =>
              bar(
                index,
                item.cumulativeTokens / budgetTokens,
                '#0969da',
                `round ${item.step.stepNumber}: ${formatCount(item.cumulativeTokens)} tokens`,
              ),
            ),
          ),
          // NOTE: scaled to the run's own duration and labelled in time, not as a share of the deadline: a sub-second run
          // under a deadline of minutes would otherwise draw bars of one pixel labelled 0%.
          figure(
            `Time elapsed at the end of each round (the run took ${formatSeconds(runMs)}; its deadline was ${formatSeconds(budgetMs)})`,
            'time used per round',
            bars.map((item, index) =>
              bar(
                index,
                item.elapsed / runMs,
                '#8250df',
                `round ${item.step.stepNumber}: ${formatSeconds(item.elapsed)}`,
                item.elapsed < 1_000 ? `${item.elapsed} ms` : formatSeconds(item.elapsed),
              ),
            ),
          ),
        ].join('\n');
  const timeline = rounds
    .map(
      (
        round,
      ) => `<li class="${round.step.role === 'JUDGE' ? 'judge' : 'round'}"><div class="round-head"><strong>${round.step.role === 'JUDGE' ? 'Judge (SemanticGuard)' : 'Round'} ${round.step.stepNumber}</strong>
  <span>+${formatSeconds(elapsedMs(run.createdAt, round.step.startedAt))}</span><span>${formatSeconds(round.duration)}</span>
  <span>${formatCount(round.step.inputTokens)} in${round.step.cachedInputTokens ? ` (${formatCount(round.step.cachedInputTokens)} cached)` : ''} / ${formatCount(round.step.outputTokens)} out</span>
  <span class="muted">finish ${escapeHtml(round.step.finishReason)}</span></div>
  ${
    round.tools.length === 0
      ? ''
      : `<ul class="tools">${round.tools
          .map((tool) => {
            const outcome = toolOutcome(tool);
            const kind = outcome.startsWith('READY (evidence)') ? 'ok' : outcome.startsWith('READY') ? 'warn' : 'bad';
            const evaluation = judged.get(tool.toolCallId);
            return `<li class="tool"><code>${escapeHtml(tool.toolName)}</code> <code class="muted">${escapeHtml(tool.toolCallId)}</code> <span class="chip ${kind}">${escapeHtml(outcome)}</span> <span class="muted">${elapsedMs(tool.startedAt, tool.endedAt)} ms${evaluation ? ` · ${evaluation === 'not judged' ? evaluation : `judged ${escapeHtml(evaluation)}`}` : ''}</span><div class="asked">${escapeHtml(describeStoredToolCall(tool))}</div></li>`;
          })
          .join('')}</ul>`
  }
  ${
    trace.reasoning.find((item) => item.stepNumber === round.step.stepNumber)?.reasoningContent
      ? `<details><summary>reasoning</summary><pre>${escapeHtml(trace.reasoning.find((item) => item.stepNumber === round.step.stepNumber)?.reasoningContent ?? '')}</pre></details>`
      : ''
  }</li>`,
    )
    .join('\n');
  // NOTE: a badge (`.chip`) is an inline-block with its own modifiers (ok, warn, bad), never `.empty`: that class is
  // the empty-state block's, with 12px padding, and an inline badge's padding is painted over the line above it.
  return `<!doctype html>
<html lang="zh">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Run ${escapeHtml(run.runId)}</title>
<style>
  body { font: 14px/1.5 ${PAGE_FONT_STACK}; margin: 24px auto; max-width: 980px; color: #1f2328; padding: 0 16px; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
  .status { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; background: ${color}; font-weight: 600; }
  .muted { color: #57606a; } code, pre { font-family: ${PAGE_MONO_FONT_STACK}; } code { font-size: 12px; }
  .facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin-top: 12px; }
  ol.timeline { list-style: none; padding: 0; } .round, .judge { border-left: 3px solid #0969da; padding: 6px 12px; margin: 8px 0; background: #f6f8fa; } .judge { border-left-color: #8250df; }
  .round-head span { margin-left: 12px; } ul.tools { list-style: none; padding-left: 16px; margin: 6px 0 0; }
  .chip { display: inline-block; line-height: 18px; padding: 0 8px; border-radius: 10px; font-size: 12px; } .chip.ok { background: #dafbe1; } .chip.warn { background: #fff8c5; } .chip.bad { background: #ffebe9; }
  figure.chart { margin: 8px 0 16px; } figure.chart figcaption { font-size: 12px; color: #57606a; } .chart .axis { font-size: 11px; fill: #57606a; }
  .empty { padding: 12px; background: #fff8c5; border-radius: 6px; } pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; background: #f6f8fa; padding: 8px; max-height: 480px; overflow: auto; }
  .asked { font-size: 12px; color: #1f2328; margin-left: 4px; } .cause { border-left: 3px solid #cf222e; padding: 4px 12px; margin-top: 16px; background: #ffebe9; }
  details.evidence { border: 1px solid #d0d7de; border-radius: 6px; padding: 6px 10px; margin: 6px 0; } details.evidence summary { cursor: pointer; } details.evidence h4 { margin: 8px 0 2px; font-size: 12px; }
  .finding { margin: 6px 0; } .cite { font-size: 12px; color: #57606a; }
</style>
</head>
<body>
<h1>Diagnosis run <code>${escapeHtml(run.runId)}</code> <span class="status">${escapeHtml(shownStatus)}</span></h1>
<div class="facts">
  <span class="muted">query</span><span id="query">${escapeHtml(run.query)}</span>
  <span class="muted">enterprise</span><span>${escapeHtml(run.enterpriseId)}</span>
  <span class="muted">session</span><span>${escapeHtml(run.sessionId)}</span>
  <span class="muted">time</span><span>${escapeHtml(run.createdAt)} → ${escapeHtml(run.endedAt ?? 'running')} (${formatSeconds(elapsedMs(run.createdAt, run.endedAt))})</span>
${
  trace.evidence.failure === null
    ? `  <span class="muted">stop reason</span><span>${escapeHtml(run.stopReason === null ? '—' : describeStop(run.stopReason, run.collectionStopReason))}</span>
  <span class="muted">error code</span><span>${escapeHtml(run.errorCode ?? '—')}</span>
`
    : ''
}  <span class="muted">usage</span><span>${run.usage === null ? '—' : `${run.usage.modelCalls} model calls · ${run.usage.toolCalls} tool calls · ${formatCount(run.usage.totalTokens)} tokens`}</span>
</div>
${renderIncidentHtml(run, incidentEvents)}
${run.processScorecard == null ? '' : `<h2>Process</h2>\n<pre id="process">${escapeHtml(describeProcessScorecard(run.processScorecard).join('\n'))}</pre>`}
${renderCauseHtml(trace.evidence)}
<h2>Budget use per round</h2>
${chart}
<h2>Timeline</h2>
${rounds.length === 0 ? `<p class="empty">${escapeHtml(emptyReason(trace.evidence, status))}</p>` : `<ol class="timeline">\n${timeline}\n</ol>`}
<h2>Report</h2>
${renderReportHtml(run.report as DiagnosisReport | null, trace.evidence)}
${renderEvidenceHtml(trace.evidence, hasScriptedJudge(run.report as DiagnosisReport | null))}
</body>
</html>
`;
}

/**
 * A triggered run's incident, as the terminal's `trace` shows it: the trigger (source, alarm or incident title, when
 * it began, its event), the incident window set by code, and every later event recorded on the run with what it said
 * (firing again, updated, acknowledged, resolved, reopened). Nothing for a caller's run. Every text the sender chose is
 * escaped.
 */
function renderIncidentHtml(
  run: Pick<RunTrace['run'], 'trigger' | 'window'>,
  events: readonly IncidentEventRecord[],
): string {
  if (run.trigger === null) return '';
  const { trigger } = run;
  const rows = events
    .map(
      (event) =>
        `<tr><td>${event.sequence}</td><td>${escapeHtml(event.receivedAt)}</td><td class="kind">${escapeHtml(event.kind)}</td><td><code>${escapeHtml(event.eventId)}</code></td></tr>`,
    )
    .join('');
  return `<h2>Incident</h2>
<h3>Trigger</h3>
<div class="facts" id="trigger">
  <span class="muted">source</span><span>${escapeHtml(trigger.source)}</span>
  <span class="muted">alarm / incident</span><span>${escapeHtml(trigger.title)}</span>
  <span class="muted">began</span><span>${escapeHtml(trigger.startedAt)}</span>
  <span class="muted">event</span><span><code>${escapeHtml(trigger.eventId)}</code></span>
  <span class="muted">incident key</span><span><code>${escapeHtml(trigger.incidentKey)}</code></span>
</div>
<h3>Incident window</h3>
<p id="window">${run.window === null ? 'none' : `${escapeHtml(run.window.from)} – ${escapeHtml(run.window.to)} (UTC): the tools may query only this window`}</p>
<h3>Attached events</h3>
${events.length === 0 ? '<p class="muted" id="attached">No later event of the incident was recorded on this run.</p>' : `<table id="attached"><thead><tr><th>#</th><th>received (UTC)</th><th>said</th><th>event</th></tr></thead><tbody>${rows}</tbody></table>`}`;
}

function renderReportHtml(report: DiagnosisReport | null, evidence: RunEvidence): string {
  if (report === null) return '<p class="muted">No report (the run has not finished).</p>';
  // NOTE: a run that did not publish has its cause (code, English explanation, the report's message) once, in the
  // cause block at the top; the report section adds only what that block does not say.
  if (report.kind === 'FAILED') return '<p><strong>FAILED</strong>: no report (the cause is given above).</p>';
  if (report.kind === 'CANCELLED') return '<p><strong>CANCELLED</strong>: no report (the cause is given above).</p>';
  const list = (items: string[]) =>
    items.length === 0
      ? '<p class="muted">—</p>'
      : `<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;
  if (report.kind === 'FALLBACK') {
    return `<p><strong>${escapeHtml(report.title)}</strong> (FALLBACK: the cause is given above)</p>
<h3>Checked</h3>${list(report.limitations.checked_scope)}<h3>Missing</h3>${list(report.limitations.missing_info)}`;
  }
  const { draft, citations } = report;
  const tools = new Map(citations.map((citation) => [citation.tool_call_id, citation.tool_name]));
  const anchors = new Map(evidence.citations.map((citation, index) => [citation.tool_call_id, evidenceAnchor(index)]));
  const cite = (id: string) => {
    const anchor = anchors.get(id);
    const text = `${escapeHtml(tools.get(id) ?? '')} <code>${escapeHtml(id)}</code>`;
    return anchor === undefined ? text : `<a href="#${anchor}">${text}</a>`;
  };
  return `<p><strong>${draft.conclusion === null ? 'No conclusion: the evidence does not support one.' : escapeHtml(draft.conclusion)}</strong></p>
<h3>Findings</h3>
${draft.analysis
  .map(
    (
      item,
    ) => `<div class="finding"><span class="chip ${item.evidence_status === 'SUPPORTED' ? 'ok' : 'warn'}">${escapeHtml(item.type)} · ${escapeHtml(item.evidence_status)}</span> ${escapeHtml(item.statement)}
  <div class="cite">${item.tool_call_ids.map(cite).join(' · ')}${item.scope === null ? '' : ` — ${escapeHtml(item.scope)}`}</div></div>`,
  )
  .join('\n')}
<h3>Action plan</h3>${list(draft.action_plan.map((step) => `${step.step} — ${step.purpose}`))}
<h3>Recommendations</h3>${list(draft.recommendations)}
${
  report.seen_before === undefined || report.seen_before.length === 0
    ? ''
    : `<h3>${escapeHtml(SEEN_BEFORE_HEADING)}</h3>
<p class="muted">${escapeHtml(SEEN_BEFORE_NOTE)}</p>
<ul id="seen-before">${report.seen_before.map((item) => `<li>${escapeHtml(describeSeenBefore(item))}</li>`).join('')}</ul>`
}
${
  report.changes === undefined || report.changes.length === 0
    ? ''
    : `<h3>${escapeHtml(CITED_CHANGES_HEADING)}</h3>
<ul id="changes">${report.changes.map((change) => `<li>${escapeHtml(describeCitedChange(change))}${linkHtml(changeLink(change))}</li>`).join('')}</ul>`
}
<h3>Checked</h3>${list(draft.limitations.checked_scope)}
<h3>Missing</h3>${list(draft.limitations.missing_info)}`;
}

/** A change's link on the page: its own tab, no referrer; nothing when it has none. */
function linkHtml(url: string | null): string {
  return url === null
    ? ''
    : ` <a href="${escapeHtml(url)}" rel="noopener noreferrer" target="_blank">${escapeHtml(url)}</a>`;
}
