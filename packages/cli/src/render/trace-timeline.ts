import { type DiagnosisReport, describeStoredToolCall, type ModelFailure } from '@diagnosis/core';
import { describeSeenBefore, SEEN_BEFORE_HEADING, SEEN_BEFORE_NOTE } from './describe-seen-before.ts';
import type { RunTrace } from './load-run-trace.ts';
import { statusWord } from './outcome-words.ts';
import { describeProcessScorecard } from './process-summary.ts';
import { describeStop, estimatedNote } from './render-report.ts';
import { hasScriptedJudge } from './scripted-judge.ts';
import { emptyReason, renderEvidenceText } from './trace-evidence.ts';
import { elapsedMs, formatCount, formatSeconds, judgedEvaluations, toolOutcome } from './trace-reading.ts';

/** A failed model request as identifiers only: `HTTP 401 · APICallError`, `CONNECTION · APICallError · ECONNREFUSED`. */
function modelFailureDetail(failure: ModelFailure): string {
  const status = failure.httpStatus === null ? null : `HTTP ${failure.httpStatus}`;
  const parts = [failure.kind === 'HTTP' ? null : failure.kind, status, failure.errorClass, failure.networkCode];
  return parts.filter((part) => part !== null).join(' · ');
}

/** The run as text, round by round. */
export function renderTimeline(trace: RunTrace): string {
  const { run } = trace;
  const judged = judgedEvaluations(trace);
  const lines = [
    `run ${run.runId}   ${statusWord(run.status)}${run.stopReason === null ? '' : `   stop ${describeStop(run.stopReason, run.collectionStopReason)}`}${run.errorCode === null ? '' : `   code ${run.errorCode}`}`,
    `enterprise ${run.enterpriseId}   session ${run.sessionId}   ${run.createdAt} → ${run.endedAt ?? 'running'} (${formatSeconds(elapsedMs(run.createdAt, run.endedAt))})`,
    `query: ${run.query}`,
    ...(run.modelFailure === null ? [] : [`model endpoint: ${modelFailureDetail(run.modelFailure)}`]),
    '',
  ];
  for (const step of trace.steps) {
    const cached = step.cachedInputTokens ? `, ${formatCount(step.cachedInputTokens)} cached` : '';
    const reasoning = step.reasoningTokens ? `, ${formatCount(step.reasoningTokens)} reasoning` : '';
    lines.push(
      `${step.role === 'JUDGE' ? 'judge' : 'round'} ${step.stepNumber}  +${formatSeconds(elapsedMs(run.createdAt, step.startedAt))}  ${formatSeconds(elapsedMs(step.startedAt, step.endedAt))}  ${formatCount(step.inputTokens)} in${cached} / ${formatCount(step.outputTokens)} out${reasoning}  finish ${step.finishReason}${step.usageEstimated ? '  (tokens estimated: no provider usage)' : ''}`,
    );
    for (const tool of trace.tools.filter((candidate) => candidate.stepNumber === step.stepNumber)) {
      const evaluation = judged.get(tool.toolCallId);
      lines.push(
        `  ${tool.toolName.padEnd(16)} ${tool.toolCallId}  ${toolOutcome(tool)}  ${elapsedMs(tool.startedAt, tool.endedAt)} ms${evaluation ? `  ${evaluation === 'not judged' ? evaluation : `judged ${evaluation}`}` : ''}`,
        `    ${describeStoredToolCall(tool)}`,
      );
    }
    const reasoningText = trace.reasoning.find((item) => item.stepNumber === step.stepNumber)?.reasoningContent;
    if (reasoningText) lines.push(`  reasoning: ${reasoningText.replace(/\s+/g, ' ')}`);
  }
  if (trace.steps.length === 0) lines.push(emptyReason(trace.evidence, run.status, 'below'));
  const report = run.report as DiagnosisReport | null;
  lines.push(...renderEvidenceText(trace.evidence, hasScriptedJudge(report)));
  if (report?.kind === 'DIAGNOSIS' && report.seen_before !== undefined && report.seen_before.length > 0) {
    lines.push('', `${SEEN_BEFORE_HEADING} (${SEEN_BEFORE_NOTE}):`);
    for (const item of report.seen_before) lines.push(`  ${describeSeenBefore(item)}`);
  }
  if (run.usage !== null) {
    lines.push(
      '',
      `usage: ${run.usage.modelCalls} model calls, ${run.usage.toolCalls} tool calls, ${formatCount(run.usage.totalTokens)} tokens${run.limits ? ` of ${formatCount(run.limits.maxTotalTokens)}` : ''}${estimatedNote(run.usage.estimatedTokenRounds)}`,
    );
  }
  if (run.processScorecard != null) lines.push(...describeProcessScorecard(run.processScorecard));
  return lines.join('\n');
}
