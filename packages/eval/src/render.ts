/** The scorecard as text (terminal), as a progress line while it runs, and as a self-contained HTML page. */
import type { EvalReport } from './run-eval.ts';
import type { ScenarioRun } from './run-scenario.ts';

const percent = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(0)}%`);
const usd = (value: number | null) => (value === null ? '—' : `$${value.toFixed(value < 0.01 ? 5 : 4)}`);
const seconds = (ms: number | null) => (ms === null ? '—' : `${(ms / 1000).toFixed(1)} s`);
const count = (value: number | null) => (value === null ? '—' : Math.round(value).toLocaleString('en-US'));

/**
 * The tokens per run: offline, measured with DeepSeek's tokenizer on the request bodies sent, beside the scripted
 * conversations' hand-written usage; live, the provider's usage.
 */
export function tokensText(report: EvalReport): string {
  const s = report.summary;
  if (s.measuredTokensPerRun === null) return `${count(s.tokensPerRun)} tokens`;
  return `${count(s.measuredTokensPerRun)} tokens measured (${count(s.measuredInputTokensPerRun)} input; scripted usage ${count(s.tokensPerRun)})`;
}

/** What the run's row says in its verdict column: the verdict, and what was expected when that differs. */
export function verdictText(run: ScenarioRun): string {
  if (run.status === 'ERROR') return `ERROR ${run.error ?? ''}`.trim();
  if (run.status === 'SKIPPED') return 'SKIPPED';
  if (run.status === 'PROBES_ONLY') return 'probes only';
  const verdict = run.verdict ?? '—';
  return run.verdict === run.expectedVerdict || run.expectedVerdict === 'CORRECT'
    ? `${verdict}${run.deliberatelyWrong ? ' (as scripted)' : ''}`
    : `${verdict} (expected ${run.expectedVerdict})`;
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

export function renderTable(report: EvalReport): string {
  const header = [
    '',
    'scenario',
    'category',
    'expect',
    'verdict',
    'probes',
    'calls',
    'tokens',
    'measured',
    'time',
    'cost',
  ];
  const rows = report.scenarios.map((run) => [
    run.passed ? 'ok' : 'XX',
    run.id,
    run.category,
    run.expectedOutcome,
    verdictText(run),
    `${run.probes.filter((probe) => probe.passed).length}/${run.probes.length}`,
    processCell(run),
    run.status === 'RAN' ? count(run.usage.totalTokens) : '—',
    run.status === 'RAN' && run.measured !== null ? count(run.measured.totalTokens) : '—',
    run.status === 'RAN' ? seconds(run.latencyMs) : '—',
    run.status === 'RAN' ? usd(run.costUsd) : '—',
  ]);
  const widths = header.map((_, column) => Math.max(...[header, ...rows].map((row) => (row[column] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => pad(cell, widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  const s = report.summary;
  const lines = [line(header), ...rows.map(line), ''];
  for (const run of report.scenarios) {
    const details: string[] = [];
    if (run.score !== null && !(run.verdict === 'CORRECT' && run.passed)) details.push(run.score.reason);
    for (const probe of run.probes.filter((candidate) => !candidate.passed)) {
      const missing = probe.missing.length > 0 ? `, missing ${probe.missing.join(' / ')}` : '';
      details.push(`probe ${probe.label}: expected ${probe.expect}, got ${probe.got}${missing}`);
    }
    if (run.captured !== null && run.captured !== undefined) details.push(capturedText(run.captured));
    details.push(...run.notes);
    if (details.length > 0) lines.push(`${run.id}: ${details.join('; ')}`);
  }
  lines.push('', ...processLines(report));
  lines.push(
    '',
    `${report.mode} eval: ${s.scenarios} scenarios (${s.ran} runs, ${s.probesOnly} probes only, ${s.skipped} skipped, ${s.errors} errors) in ${seconds(report.wallMs)}, concurrency ${report.concurrency}`,
    `accuracy ${percent(s.accuracy)} (${s.verdicts.CORRECT}/${s.ran} correct, ${s.verdicts.INCOMPLETE} incomplete, ${s.verdicts.ABSTAINED} abstained, ${s.verdicts.FAILED} failed), mean points ${s.meanPoints === null ? '—' : s.meanPoints.toFixed(2)}`,
    `confidently wrong: ${s.confidentlyWrong}   abstention precision ${percent(s.abstentionPrecision)} recall ${percent(s.abstentionRecall)}`,
    `probes ${s.probes.passed}/${s.probes.total} (evidence found ${percent(s.probes.evidenceRecall)}, isolation ${percent(s.probes.emptyPassed)})`,
    `per run: ${tokensText(report)}, ${usd(s.costPerRunUsd)}${s.measuredTokensPerRun === null ? '' : ' (of the measured tokens, cache hits estimated)'}; total ${usd(s.costTotalUsd)} at $${report.price.input}/$${report.price.cachedInput}/$${report.price.output} per M input/cached/output; latency p50 ${seconds(s.latencyP50Ms)} p95 ${seconds(s.latencyP95Ms)}`,
    report.mode === 'offline'
      ? `${s.asExpected}/${s.scenarios} scenarios scored as expected${s.allAsExpected ? '' : ' — FAIL'}`
      : `${s.asExpected}/${s.scenarios} scenarios correct with all probes passing`,
  );
  return `${lines.join('\n')}\n`;
}

/** The process cell of a row: rounds, executed, refused and redundant calls (docs/learning-from-runs.md). */
export function processCell(run: ScenarioRun): string {
  const card = run.process;
  if (card === null || card === undefined) return '—';
  return `${card.rounds}r ${card.toolCalls.executed}x ${card.toolCalls.refused}ref ${card.toolCalls.redundant}dup${card.answeredWithoutTools ? ' no-tools' : ''}`;
}

function capturedText(captured: NonNullable<ScenarioRun['captured']>): string {
  const said = (conclusion: string | null) => (conclusion === null ? 'no conclusion' : `“${conclusion.slice(0, 60)}”`);
  return `captured run ${captured.runId} rated ${captured.feedbackVerdict}: original ${captured.originalStatus} ${said(captured.originalConclusion)} → replay ${captured.replayedStatus} ${said(captured.replayedConclusion)}: ${captured.regressed ? 'REGRESSED' : 'not regressed'}${captured.notRecorded > 0 ? `, ${captured.notRecorded} NOT_RECORDED` : ''}`;
}

/** The process figures over all runs and per category, and the captured scenarios' regressions. */
function processLines(report: EvalReport): string[] {
  const s = report.summary;
  const figures = (p: NonNullable<typeof s.process>) =>
    `${p.roundsPerRun.toFixed(1)} rounds, ${p.toolCallsPerRun.toFixed(1)} calls (${p.refusedPerRun.toFixed(2)} refused, ${p.redundantPerRun.toFixed(2)} redundant, ${p.unproductivePerRun.toFixed(2)} unproductive), ${p.answeredWithoutTools} answered without tools, guards removed ${percent(p.guardRemovedShare)}, ${p.citationsPerFinding === null ? '—' : p.citationsPerFinding.toFixed(2)} citations/finding, model ${seconds(p.modelMsPerRun)} tools ${seconds(p.toolMsPerRun)}`;
  if (s.process === null || s.process === undefined) return [];
  const lines = [`process per run (${s.process.runs} runs): ${figures(s.process)}`];
  for (const [category, summary] of Object.entries(s.byCategory ?? {})) {
    if (summary.process === null) continue;
    lines.push(
      `  ${category}: ${summary.correct}/${summary.ran} correct, mean points ${summary.meanPoints === null ? '—' : summary.meanPoints.toFixed(2)}; ${figures(summary.process)}`,
    );
  }
  if (s.captured !== undefined && s.captured.scenarios > 0) {
    lines.push(`captured scenarios: ${s.captured.scenarios}, regressed ${s.captured.regressed}`);
  }
  const past = s.pastIncidents;
  if (past !== undefined && (past.hits > 0 || past.removed > 0 || past.roundsSaved.length > 0)) {
    const saved = past.roundsSaved.map(
      (row) => `${row.scenario} ${row.rounds} rounds vs ${row.baseline} ${row.baselineRounds} (${row.saved} saved)`,
    );
    lines.push(
      `past incidents: ${past.hits} hit(s), ${past.removed} memory-only finding(s) removed${saved.length > 0 ? `; ${saved.join('; ')}` : ''}`,
    );
  }
  return lines;
}

/** One line for the progress display: a bar, the count, and the scenarios in flight. */
export function progressLine(done: number, total: number, running: readonly string[], width = 24): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
  const names = running.join(', ');
  return `[${bar}] ${done}/${total}${names === '' ? '' : `  running ${names.length > 60 ? `${names.slice(0, 57)}...` : names}`}`;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] as string);
}

const VERDICT_COLORS: Record<string, string> = {
  CORRECT: '#1a7f37',
  INCOMPLETE: '#9a6700',
  ABSTAINED: '#57606a',
  FAILED: '#6e40c9',
  CONFIDENTLY_WRONG: '#cf222e',
};

/** A self-contained page (no script, no external resource): summary, one row per scenario, details on demand. */
export function renderHtml(report: EvalReport): string {
  const s = report.summary;
  const e = escapeHtml;
  const card = (label: string, value: string) =>
    `<div class="card"><div class="value">${e(value)}</div><div class="label">${e(label)}</div></div>`;
  const rows = report.scenarios
    .map((run) => {
      const color = VERDICT_COLORS[run.verdict ?? ''] ?? '#57606a';
      const probes = run.probes
        .map(
          (probe) =>
            `<li class="${probe.passed ? 'pass' : 'fail'}">${probe.passed ? '✓' : '✗'} ${e(probe.label)} — expected ${e(probe.expect)}, got ${e(probe.got)}${probe.missing.length > 0 ? `, missing ${e(probe.missing.join(' / '))}` : ''}</li>`,
        )
        .join('');
      const conclusion = run.observation?.conclusion ?? null;
      return `<tr class="${run.passed ? 'pass' : 'fail'}">
<td>${run.passed ? '✓' : '✗'}</td>
<td><details><summary><code>${e(run.id)}</code> ${e(run.title)}</summary>
<p><b>score:</b> ${e(run.score?.reason ?? run.error ?? run.notes.join('; '))}</p>
${conclusion === null ? '' : `<p><b>conclusion:</b> ${e(conclusion)}</p>`}
${run.observation === null ? '' : `<p><b>cited tools:</b> ${e(run.observation.citedTools.join(', ') || '—')} · <b>SemanticGuard:</b> ${e(run.semanticGuard)} (${e(run.observation.semanticGuard)})</p>`}
${run.deliberatelyWrong ? '<p><b>deliberately wrong scripted conversation</b>: the scorer must fail it.</p>' : ''}
${run.captured === null || run.captured === undefined ? '' : `<p><b>captured:</b> ${e(capturedText(run.captured))}</p>`}
${run.notes.length > 0 ? `<p><b>notes:</b> ${e(run.notes.join('; '))}</p>` : ''}
<ul class="probes">${probes}</ul></details></td>
<td>${e(run.category)}</td><td>${e(run.expectedOutcome)}</td>
<td><span class="verdict" style="background:${color}">${e(verdictText(run))}</span></td>
<td>${run.probes.filter((probe) => probe.passed).length}/${run.probes.length}</td>
<td>${e(processCell(run))}</td>
<td class="num">${run.status === 'RAN' ? count(run.usage.totalTokens) : '—'}</td>
<td class="num">${run.status === 'RAN' && run.measured !== null ? count(run.measured.totalTokens) : '—'}</td>
<td class="num">${run.status === 'RAN' ? seconds(run.latencyMs) : '—'}</td>
<td class="num">${run.status === 'RAN' ? usd(run.costUsd) : '—'}</td></tr>`;
    })
    .join('\n');
  return `<!doctype html>
<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Diagnosis Agent — ${e(report.mode)} eval scorecard</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","Source Han Sans SC","WenQuanYi Micro Hei","PingFang SC","Microsoft YaHei",sans-serif;margin:2rem;color:#1f2328}
.cards{display:flex;flex-wrap:wrap;gap:.75rem;margin:1rem 0}.card{border:1px solid #d0d7de;border-radius:8px;padding:.6rem 1rem;min-width:9rem}
.value{font-size:1.4rem;font-weight:600}.label{color:#57606a;font-size:.85rem}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #d0d7de;padding:.4rem .5rem;text-align:left;vertical-align:top}
td.num{text-align:right;white-space:nowrap}.verdict{color:#fff;border-radius:4px;padding:.1rem .4rem;font-size:.8rem;white-space:nowrap}
tr.fail>td:first-child{color:#cf222e;font-weight:700}tr.pass>td:first-child{color:#1a7f37}li.fail{color:#cf222e}summary{cursor:pointer}
</style></head><body>
<h1>Diagnosis Agent — ${e(report.mode)} eval scorecard</h1>
<p>${e(report.startedAt)} · ${s.scenarios} scenarios · wall time ${e(seconds(report.wallMs))} · concurrency ${report.concurrency}${report.mode === 'offline' ? ' · the model is a scripted replay (hand-written conversations), everything else is the real pipeline' : ''}</p>
<div class="cards">
${card('scored as expected', `${s.asExpected}/${s.scenarios}`)}
${card('accuracy', percent(s.accuracy))}
${card('confidently wrong', String(s.confidentlyWrong))}
${card('abstention precision / recall', `${percent(s.abstentionPrecision)} / ${percent(s.abstentionRecall)}`)}
${card('probes passed', `${s.probes.passed}/${s.probes.total}`)}
${card(s.measuredTokensPerRun === null ? 'tokens per run' : 'tokens per run, measured (scripted)', s.measuredTokensPerRun === null ? count(s.tokensPerRun) : `${count(s.measuredTokensPerRun)} (${count(s.tokensPerRun)})`)}
${card('cost per run', usd(s.costPerRunUsd))}
${card('latency p50 / p95', `${seconds(s.latencyP50Ms)} / ${seconds(s.latencyP95Ms)}`)}
</div>
<table><thead><tr><th></th><th>scenario</th><th>category</th><th>expect</th><th>verdict</th><th>probes</th><th>calls</th><th>tokens (scripted)</th><th>tokens (measured)</th><th>time</th><th>cost</th></tr></thead>
<tbody>
${rows}
</tbody></table>
<p>Verdicts, best to worst: CORRECT, INCOMPLETE (right cause, evidence or guard missing), ABSTAINED (a safe miss), FAILED (no result), CONFIDENTLY_WRONG (a published wrong or forbidden claim). Cost at $${report.price.input} / $${report.price.cachedInput} / $${report.price.output} per million input / cached input / output tokens${s.measuredTokensPerRun === null ? '' : ', of the tokens measured with DeepSeek’s tokenizer on the request bodies sent (prompt-cache hits estimated from the prefixes requests share); “scripted” is the hand-written usage of the scripted conversations'}.</p>
</body></html>
`;
}
