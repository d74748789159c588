/**
 * What `diagnosis eval capture` reads of a run: the run item, its steps, tool calls and reasoning, its feedback and,
 * for a follow-up, its previous turn's audit — through a read-only source (Get and Query). Building the scenario
 * from it is capture-run.ts's.
 */
import type { FeedbackStore, RunFeedback, RunStore, StoredReasoning, StoredRun } from '@diagnosis/core';
import type { StoredStep, StoredToolInvocation } from '@diagnosis/core/store';

/** One run as its audit holds it: the run item, its steps, tool calls and reasoning. */
export interface RunAudit {
  run: StoredRun;
  steps: StoredStep[];
  tools: StoredToolInvocation[];
  reasoning: StoredReasoning[];
}

export interface CapturedAudit extends RunAudit {
  feedback: RunFeedback[];
  /** The run a follow-up continued from (the newest published run of its session before it), or null. */
  previous: RunAudit | null;
}

export interface CaptureSource {
  store: Pick<RunStore, 'getRun' | 'listRunRecords' | 'listReasoning'>;
  feedback: Pick<FeedbackStore, 'listFeedback'>;
  /** The newest published diagnosis of the run's session created before it, or null. */
  findPreviousRun(run: StoredRun): Promise<StoredRun | null>;
}

/** The most pages of 100 records read per partition: a run holds a few dozen items. */
const MAX_PAGES = 20;

/** Reads a run's audit, its feedback and (for a follow-up) its previous turn's audit. Null when the run is unknown. */
export async function loadCapturedAudit(runId: string, source: CaptureSource): Promise<CapturedAudit | null> {
  const audit = await loadRunAudit(runId, source);
  if (audit === null) return null;
  const previousRun = audit.run.continueSession ? await source.findPreviousRun(audit.run) : null;
  const previous = previousRun === null ? null : await loadRunAudit(previousRun.runId, source);
  return { ...audit, feedback: await source.feedback.listFeedback(runId), previous };
}

async function loadRunAudit(runId: string, source: CaptureSource): Promise<RunAudit | null> {
  const run = await source.store.getRun(runId);
  if (run === null) return null;
  const audit: RunAudit = { run, steps: [], tools: [], reasoning: [] };
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await source.store.listRunRecords(runId, {
      limit: 100,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const record of result.records) {
      if (record.entity === 'agent_step') audit.steps.push(record);
      else if (record.entity === 'tool_invocation') audit.tools.push(record);
    }
    cursor = result.cursor ?? undefined;
    if (cursor === undefined) break;
  }
  cursor = undefined;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const result = await source.store.listReasoning(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    audit.reasoning.push(...result.records);
    cursor = result.cursor ?? undefined;
    if (cursor === undefined) break;
  }
  audit.steps.sort((a, b) => a.stepNumber - b.stepNumber);
  audit.tools.sort((a, b) => a.stepNumber - b.stepNumber || Date.parse(a.startedAt) - Date.parse(b.startedAt));
  return audit;
}
