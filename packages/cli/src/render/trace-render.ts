/**
 * A stored run as something to look at: a text timeline, a Mermaid sequence diagram (App, Harness, Agent, Tool
 * boundary, Audit, EvidenceGuard, Release — as in the architecture document), and a self-contained HTML page.
 * NOTE: just over 300 lines: three renderings of one trace model, kept together so they show the same run the same way.
 */
import type { DiagnosisReport, ModelFailure, RunStore } from '@diagnosis/core';
import type { StoredReasoning, StoredRun, StoredStep, StoredToolInvocation } from '@diagnosis/core/store';
import { describeStop, estimatedNote } from './render-report.ts';

export interface RunTrace {
  run: StoredRun;
  steps: StoredStep[];
  tools: StoredToolInvocation[];
  reasoning: StoredReasoning[];
}

export async function loadRunTrace(
  store: RunStore,
  runId: string,
  includeReasoning: boolean,
): Promise<RunTrace | null> {
  const run = await store.getRun(runId);
  if (run === null) return null;
  const trace: RunTrace = { run, steps: [], tools: [], reasoning: [] };
  let cursor: string | undefined;
  do {
    const page = await store.listRunRecords(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    for (const record of page.records) {
      if (record.entity === 'agent_step') trace.steps.push(record);
      else if (record.entity === 'tool_invocation') trace.tools.push(record);
    }
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  while (includeReasoning) {
    const page = await store.listReasoning(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    trace.reasoning.push(...page.records);
    cursor = page.cursor ?? undefined;
    if (cursor === undefined) break;
  }
  trace.steps.sort((a, b) => a.stepNumber - b.stepNumber);
  trace.tools.sort(
    (a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt) || a.toolCallId.localeCompare(b.toolCallId),
  );
  trace.reasoning.sort((a, b) => a.stepNumber - b.stepNumber);
  return trace;
}

const ms = (from: string, to: string | null) => (to === null ? 0 : Date.parse(to) - Date.parse(from));
const seconds = (value: number) => `${(value / 1_000).toFixed(2)} s`;
const number = (value: number) => value.toLocaleString('en');

/** How the model judged each result; a result still PENDING at the end was not judged (the Draft came next). */
function evaluations(trace: RunTrace): Map<string, string> {
  return new Map(
    (trace.run.progress?.checks ?? []).map((check) => [
      check.toolCallId,
      check.evaluation === 'PENDING' ? 'not judged' : (check.evaluation ?? ''),
    ]),
  );
}

function toolOutcome(tool: StoredToolInvocation): string {
  if (tool.disposition === 'STOPPED') return 'STOPPED (STOP_REQUIRED)';
  if (tool.disposition === 'REJECTED') return `REJECTED ${tool.code ?? ''}`.trim();
  if (tool.status === 'ERROR') return `ERROR ${tool.code ?? ''}`.trim();
  return tool.empty ? 'READY (no match)' : 'READY (evidence)';
}

/** A failed model request as identifiers only: `HTTP 401 · APICallError`, `CONNECTION · APICallError · ECONNREFUSED`. */
function modelFailureDetail(failure: ModelFailure): string {
  const status = failure.httpStatus === null ? null : `HTTP ${failure.httpStatus}`;
  const parts = [failure.kind === 'HTTP' ? null : failure.kind, status, failure.errorClass, failure.networkCode];
  return parts.filter((part) => part !== null).join(' · ');
}

/** The run as text, round by round. */
export function renderTimeline(trace: RunTrace): string {
  const { run } = trace;
  const judged = evaluations(trace);
  const lines = [
    `run ${run.runId}   ${run.status}${run.stopReason === null ? '' : `   stop ${describeStop(run.stopReason, run.collectionStopReason)}`}${run.errorCode === null ? '' : `   code ${run.errorCode}`}`,
    `enterprise ${run.enterpriseId}   session ${run.sessionId}   ${run.createdAt} → ${run.endedAt ?? 'running'} (${seconds(ms(run.createdAt, run.endedAt))})`,
    `query: ${run.query}`,
    ...(run.modelFailure === null ? [] : [`model endpoint: ${modelFailureDetail(run.modelFailure)}`]),
    '',
  ];
  for (const step of trace.steps) {
    const cached = step.cachedInputTokens ? `, ${number(step.cachedInputTokens)} cached` : '';
    const reasoning = step.reasoningTokens ? `, ${number(step.reasoningTokens)} reasoning` : '';
    lines.push(
      `${step.role === 'JUDGE' ? 'judge' : 'round'} ${step.stepNumber}  +${seconds(ms(run.createdAt, step.startedAt))}  ${seconds(ms(step.startedAt, step.endedAt))}  ${number(step.inputTokens)} in${cached} / ${number(step.outputTokens)} out${reasoning}  finish ${step.finishReason}${step.usageEstimated ? '  (tokens estimated: no provider usage)' : ''}`,
    );
    for (const tool of trace.tools.filter((candidate) => candidate.stepNumber === step.stepNumber)) {
      const evaluation = judged.get(tool.toolCallId);
      lines.push(
        `  ${tool.toolName.padEnd(16)} ${tool.toolCallId}  ${toolOutcome(tool)}  ${ms(tool.startedAt, tool.endedAt)} ms${evaluation ? `  judged ${evaluation}` : ''}`,
      );
    }
    const reasoningText = trace.reasoning.find((item) => item.stepNumber === step.stepNumber)?.reasoningContent;
    if (reasoningText) lines.push(`  reasoning: ${reasoningText.replace(/\s+/g, ' ')}`);
  }
  if (run.usage !== null) {
    lines.push(
      '',
      `usage: ${run.usage.modelCalls} model calls, ${run.usage.toolCalls} tool calls, ${number(run.usage.totalTokens)} tokens${run.limits ? ` of ${number(run.limits.maxTotalTokens)}` : ''}${estimatedNote(run.usage.estimatedTokenRounds)}`,
    );
  }
  return lines.join('\n');
}

/** Text that Mermaid reads as plain message text. */
function label(text: string): string {
  return text
    .replace(/[;#<>{}]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
}

/** The run as a Mermaid sequence diagram. */
export function renderMermaid(trace: RunTrace): string {
  const { run } = trace;
  const lines = [
    'sequenceDiagram',
    '    participant App as Application',
    '    participant Harness as Harness',
    '    participant Agent as Diagnosis Agent',
    '    participant Tool as Tool boundary',
    '    participant Audit as Audit',
    '    participant EG as EvidenceGuard',
    '    participant SG as SemanticGuard',
    '    participant Release as Release',
    `    App->>Harness: start run ${label(run.runId)} for ${label(run.enterpriseId)}`,
    '    App->>Agent: query + previous_turn',
  ];
  const agentSteps = trace.steps.filter((step) => step.role !== 'JUDGE');
  const judgeSteps = trace.steps.filter((step) => step.role === 'JUDGE');
  for (const step of agentSteps) {
    lines.push(`    Harness->>Agent: round ${step.stepNumber} allowed`);
    lines.push(
      `    Agent->>Audit: agent_step ${step.stepNumber}, ${step.inputTokens} in / ${step.outputTokens} out tokens`,
    );
    for (const tool of trace.tools.filter((candidate) => candidate.stepNumber === step.stepNumber)) {
      lines.push(`    Agent->>Tool: ${tool.toolName} ${label(tool.toolCallId)}`);
      lines.push(`    Tool-->>Agent: ${label(toolOutcome(tool))}`);
      lines.push(`    Tool->>Audit: tool_invocation ${label(tool.toolCallId)}`);
    }
  }
  if (run.collectionStopReason !== null && run.collectionStopReason !== run.stopReason) {
    lines.push(`    Note over Harness,Agent: collection stopped ${run.collectionStopReason}`);
  }
  if (run.stopReason !== null) lines.push(`    Note over Harness,Agent: stop ${run.stopReason}`);
  const report = run.report as DiagnosisReport | null;
  if (run.draft !== null) {
    lines.push('    Agent-->>App: DiagnosisDraft');
    lines.push('    App->>EG: Draft + this run canonical invocations');
    lines.push(`    EG-->>App: ${run.errorCode?.startsWith('GUARD_') ? label(run.errorCode) : 'verified snapshot'}`);
    for (const step of judgeSteps) {
      lines.push('    App->>SG: query + full Draft + verified evidence');
      lines.push(
        `    SG->>Audit: agent_step ${step.stepNumber} (JUDGE), ${step.inputTokens} in / ${step.outputTokens} out`,
      );
      lines.push(`    SG-->>App: ${run.errorCode?.startsWith('SEMANTIC_GUARD_') ? label(run.errorCode) : 'verdicts'}`);
    }
  } else {
    lines.push(`    Agent-->>App: no Draft${run.errorCode === null ? '' : ` (${label(run.errorCode)})`}`);
  }
  lines.push('    App->>Release: decide public content');
  lines.push(
    `    Release-->>App: ${report?.kind === 'DIAGNOSIS' ? 'PUBLISHED' : report?.kind === 'FALLBACK' ? 'FALLBACK report' : 'FAILED'}`,
  );
  return `${lines.join('\n')}\n`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The run as one self-contained HTML page: no script, no external resource. */
export function renderHtml(trace: RunTrace): string {
  const { run } = trace;
  const judged = evaluations(trace);
  const status = run.status;
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
    duration: ms(step.startedAt, step.endedAt),
    tools: trace.tools.filter((tool) => tool.stepNumber === step.stepNumber),
  }));
  const budgetTokens = run.limits?.maxTotalTokens ?? Math.max(1, ...rounds.map((round) => round.tokens));
  const budgetMs =
    run.deadlineAt === null
      ? Math.max(1, ms(run.createdAt, run.endedAt))
      : Math.max(1, ms(run.createdAt, run.deadlineAt));
  let cumulativeTokens = 0;
  const bars = rounds.map((round) => {
    cumulativeTokens += round.tokens;
    return { ...round, cumulativeTokens, elapsed: ms(run.createdAt, round.step.endedAt) };
  });
  const chartWidth = Math.max(320, bars.length * 70 + 60);
  const bar = (index: number, share: number, fill: string, title: string, y0: number) => {
    const height = Math.max(1, Math.round(Math.min(1, share) * 120));
    const x = 50 + index * 70;
    return `<rect x="${x}" y="${y0 + 120 - height}" width="26" height="${height}" fill="${fill}"><title>${escapeHtml(title)}</title></rect><text x="${x - 4}" y="${y0 + 114 - height}" class="axis">${Math.round(share * 100)}%</text>`;
  };
  const chart = `<svg class="chart" role="img" aria-label="budget use per round" width="${chartWidth}" height="330" viewBox="0 0 ${chartWidth} 330">
  <text x="0" y="14" class="axis">tokens used, cumulative (share of ${number(budgetTokens)})</text>
  <line x1="40" y1="140" x2="${chartWidth - 10}" y2="140" stroke="#d0d7de"/>
  ${bars.map((item, index) => bar(index, item.cumulativeTokens / budgetTokens, '#0969da', `round ${item.step.stepNumber}: ${number(item.cumulativeTokens)} tokens`, 20)).join('\n  ')}
  <text x="0" y="178" class="axis">time elapsed at the end of each round (share of the deadline, ${seconds(budgetMs)})</text>
  <line x1="40" y1="306" x2="${chartWidth - 10}" y2="306" stroke="#d0d7de"/>
  ${bars.map((item, index) => bar(index, item.elapsed / budgetMs, '#8250df', `round ${item.step.stepNumber}: ${seconds(item.elapsed)}`, 186)).join('\n  ')}
  ${bars.map((item, index) => `<text x="${50 + index * 70}" y="324" class="axis">R${item.step.stepNumber}</text>`).join('')}
</svg>`;
  const timeline = rounds
    .map(
      (
        round,
      ) => `<li class="${round.step.role === 'JUDGE' ? 'judge' : 'round'}"><div class="round-head"><strong>${round.step.role === 'JUDGE' ? 'Judge (SemanticGuard)' : 'Round'} ${round.step.stepNumber}</strong>
  <span>+${seconds(ms(run.createdAt, round.step.startedAt))}</span><span>${seconds(round.duration)}</span>
  <span>${number(round.step.inputTokens)} in${round.step.cachedInputTokens ? ` (${number(round.step.cachedInputTokens)} cached)` : ''} / ${number(round.step.outputTokens)} out</span>
  <span class="muted">finish ${escapeHtml(round.step.finishReason)}</span></div>
  ${
    round.tools.length === 0
      ? ''
      : `<ul class="tools">${round.tools
          .map((tool) => {
            const outcome = toolOutcome(tool);
            const kind = outcome.startsWith('READY (evidence)') ? 'ok' : outcome.startsWith('READY') ? 'empty' : 'bad';
            const evaluation = judged.get(tool.toolCallId);
            return `<li class="tool"><code>${escapeHtml(tool.toolName)}</code> <code class="muted">${escapeHtml(tool.toolCallId)}</code> <span class="chip ${kind}">${escapeHtml(outcome)}</span> <span class="muted">${ms(tool.startedAt, tool.endedAt)} ms${evaluation ? ` · judged ${escapeHtml(evaluation)}` : ''}</span></li>`;
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
  return `<!doctype html>
<html lang="zh">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Run ${escapeHtml(run.runId)}</title>
<style>
  body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", sans-serif; margin: 24px auto; max-width: 980px; color: #1f2328; padding: 0 16px; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
  .status { display: inline-block; padding: 2px 10px; border-radius: 12px; color: #fff; background: ${color}; font-weight: 600; }
  .muted { color: #57606a; } code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
  .facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin-top: 12px; }
  ol.timeline { list-style: none; padding: 0; } .round, .judge { border-left: 3px solid #0969da; padding: 6px 12px; margin: 8px 0; background: #f6f8fa; } .judge { border-left-color: #8250df; }
  .round-head span { margin-left: 12px; } ul.tools { list-style: none; padding-left: 16px; margin: 6px 0 0; }
  .chip { padding: 0 8px; border-radius: 10px; font-size: 12px; } .chip.ok { background: #dafbe1; } .chip.empty { background: #fff8c5; } .chip.bad { background: #ffebe9; }
  .chart .axis { font-size: 11px; fill: #57606a; } pre { white-space: pre-wrap; font-size: 12px; }
  .finding { margin: 6px 0; } .cite { font-size: 12px; color: #57606a; }
</style>
</head>
<body>
<h1>Diagnosis run <code>${escapeHtml(run.runId)}</code> <span class="status">${escapeHtml(status)}</span></h1>
<div class="facts">
  <span class="muted">query</span><span>${escapeHtml(run.query)}</span>
  <span class="muted">enterprise</span><span>${escapeHtml(run.enterpriseId)}</span>
  <span class="muted">session</span><span>${escapeHtml(run.sessionId)}</span>
  <span class="muted">time</span><span>${escapeHtml(run.createdAt)} → ${escapeHtml(run.endedAt ?? 'running')} (${seconds(ms(run.createdAt, run.endedAt))})</span>
  <span class="muted">stop reason</span><span>${escapeHtml(run.stopReason === null ? '—' : describeStop(run.stopReason, run.collectionStopReason))}</span>
  <span class="muted">error code</span><span>${escapeHtml(run.errorCode ?? '—')}</span>
  <span class="muted">usage</span><span>${run.usage === null ? '—' : `${run.usage.modelCalls} model calls · ${run.usage.toolCalls} tool calls · ${number(run.usage.totalTokens)} tokens`}</span>
</div>
<h2>Budget use per round</h2>
${chart}
<h2>Timeline</h2>
<ol class="timeline">
${timeline}
</ol>
<h2>Report</h2>
${renderReportHtml(run.report as DiagnosisReport | null)}
</body>
</html>
`;
}

function renderReportHtml(report: DiagnosisReport | null): string {
  if (report === null) return '<p class="muted">No report (the run has not finished).</p>';
  if (report.kind === 'FAILED')
    return `<p><strong>FAILED</strong> ${escapeHtml(report.message)} <code>${escapeHtml(report.error_code)}</code></p>`;
  if (report.kind === 'CANCELLED') return `<p><strong>CANCELLED</strong> ${escapeHtml(report.message)}</p>`;
  const list = (items: string[]) =>
    items.length === 0
      ? '<p class="muted">—</p>'
      : `<ul>${items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>`;
  if (report.kind === 'FALLBACK') {
    return `<p><strong>${escapeHtml(report.title)}</strong></p><p>${escapeHtml(report.message)}</p><p>${escapeHtml(report.reason)}</p>
<h3>Checked</h3>${list(report.limitations.checked_scope)}<h3>Missing</h3>${list(report.limitations.missing_info)}`;
  }
  const { draft, citations } = report;
  const tools = new Map(citations.map((citation) => [citation.tool_call_id, citation.tool_name]));
  return `<p><strong>${draft.conclusion === null ? 'No conclusion: the evidence does not support one.' : escapeHtml(draft.conclusion)}</strong></p>
<h3>Findings</h3>
${draft.analysis
  .map(
    (
      item,
    ) => `<div class="finding"><span class="chip ${item.evidence_status === 'SUPPORTED' ? 'ok' : 'empty'}">${escapeHtml(item.type)} · ${escapeHtml(item.evidence_status)}</span> ${escapeHtml(item.statement)}
  <div class="cite">${item.tool_call_ids.map((id) => `${escapeHtml(tools.get(id) ?? '')} <code>${escapeHtml(id)}</code>`).join(' · ')}${item.scope === null ? '' : ` — ${escapeHtml(item.scope)}`}</div></div>`,
  )
  .join('\n')}
<h3>Action plan</h3>${list(draft.action_plan.map((step) => `${step.step} — ${step.purpose}`))}
<h3>Recommendations</h3>${list(draft.recommendations)}
<h3>Checked</h3>${list(draft.limitations.checked_scope)}
<h3>Missing</h3>${list(draft.limitations.missing_info)}`;
}
