import { buildRunEvidence, type RunEvidence, type RunStore } from '@diagnosis/core';
import type {
  IncidentEventRecord,
  StoredReasoning,
  StoredRun,
  StoredStep,
  StoredToolInvocation,
} from '@diagnosis/core/store';

/**
 * A stored run with all its records, as the trace renderings show it: the timeline (`renderTimeline`), the Mermaid
 * sequence diagram (`renderMermaid`) and the HTML page (`renderHtml`).
 */
export interface RunTrace {
  run: StoredRun;
  steps: StoredStep[];
  tools: StoredToolInvocation[];
  reasoning: StoredReasoning[];
  /** The evidence behind the citations and, for a run that did not succeed, its cause (see `buildRunEvidence`). */
  evidence: RunEvidence;
  /** A triggered run's later incident events (firing again, acknowledged, resolved…), when the caller read them. */
  incidentEvents?: readonly IncidentEventRecord[];
}

/**
 * Reads a run and every record of its partition, page by page (and its raw reasoning, from its own partition, only
 * when asked): steps by number, tool calls by start time; null when the run does not exist.
 */
export async function loadRunTrace(
  store: RunStore,
  runId: string,
  includeReasoning: boolean,
): Promise<RunTrace | null> {
  const run = await store.getRun(runId);
  if (run === null) return null;
  const trace: RunTrace = { run, steps: [], tools: [], reasoning: [], evidence: buildRunEvidence(run, []) };
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
  trace.evidence = buildRunEvidence(run, trace.tools);
  return trace;
}
