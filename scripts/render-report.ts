import type { DiagnosisResult, FallbackReport, PublishedReport } from '@diagnosis/core';

/** The result of a run as a person reads it: conclusion, findings with their evidence, plan, limits. */
export function renderReport(result: DiagnosisResult): string {
  const lines: string[] = [];
  const usage = result.usage;
  if (result.report.kind === 'DIAGNOSIS') renderPublished(result.report, lines);
  else if (result.report.kind === 'FALLBACK') renderFallback(result.report, lines);
  else if (result.report.kind === 'CANCELLED') lines.push('诊断已取消 (CANCELLED)', `  ${result.report.message}`);
  else lines.push('诊断失败 (FAILED)', `  ${result.report.message}`, `  错误码: ${result.report.error_code}`);
  lines.push(
    '',
    `run ${result.runId}   status ${result.status}${result.stopReason === null ? '' : `   stop ${result.stopReason}`}`,
    `model calls ${usage.modelCalls}   tool calls ${usage.toolCalls}   tokens ${usage.totalTokens.toLocaleString('en')} (${usage.inputTokens.toLocaleString('en')} in / ${usage.outputTokens.toLocaleString('en')} out)`,
  );
  return lines.join('\n');
}

function renderPublished(report: PublishedReport, lines: string[]): void {
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
  renderLimitations(draft.limitations, lines);
}

function renderFallback(report: FallbackReport, lines: string[]): void {
  lines.push(`━━ ${report.title} (FALLBACK) ━━`, report.message, `原因: ${report.reason}`);
  renderLimitations(report.limitations, lines);
}

function renderLimitations(limitations: { checked_scope: string[]; missing_info: string[] }, lines: string[]): void {
  lines.push('', '限制 Limitations');
  for (const scope of limitations.checked_scope) lines.push(`  已检查: ${scope}`);
  for (const missing of limitations.missing_info) lines.push(`  缺少: ${missing}`);
  if (limitations.checked_scope.length + limitations.missing_info.length === 0) lines.push('  (none)');
}
