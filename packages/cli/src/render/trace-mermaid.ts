import type { DiagnosisReport } from '@diagnosis/core';
import type { RunTrace } from './load-run-trace.ts';
import { statusWord } from './outcome-words.ts';
import { toolOutcome } from './trace-reading.ts';

/** Text that Mermaid reads as plain message text. */
function label(text: string): string {
  return text
    .replace(/[;#<>{}]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 120);
}

/**
 * The run as a Mermaid sequence diagram, with the participants of the architecture document (App, Harness, Agent,
 * Tool boundary, Audit, EvidenceGuard, SemanticGuard, Release).
 */
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
    `    Release-->>App: ${report === null ? statusWord(run.status) : report.kind === 'DIAGNOSIS' ? 'PUBLISHED' : report.kind === 'FALLBACK' ? 'FALLBACK report' : report.kind}`,
  );
  return `${lines.join('\n')}\n`;
}
