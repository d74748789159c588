import type { ProcessScorecard } from '../run/process-scores.ts';
import type { RunOutcome, RunStore, StoredStep, StoredToolInvocation } from '../store/run-store.ts';
import { buildProcessScorecard, type ScoredRun } from './process-scorecard.ts';

/**
 * The most records read to score a closed run: far more than a run writes (8 rounds × at most 100 tool calls, the
 * judge's call and the run item), so a real run's audit is always read whole.
 */
export const MAX_SCORED_RECORDS = 2_000;

/** What the scorecard reads of a run that is about to be stored with `outcome` (its ISO deadline, as read back). */
function scoredRunOf(outcome: RunOutcome): ScoredRun {
  return {
    status: outcome.status,
    draft: outcome.draft,
    publishedResult: outcome.publishedResult,
    progress: outcome.progress,
    limits: outcome.limits ?? null,
    deadlineAt:
      outcome.deadlineAt === undefined || outcome.deadlineAt === null
        ? null
        : new Date(outcome.deadlineAt).toISOString(),
  };
}

/**
 * The process scorecard of a run closed by something other than its own invocation (the sweeper, a workflow's
 * failure event, a second invocation finding it abandoned), computed from its stored audit — its steps and tool
 * invocations as the table holds them, read a page at a time — and the outcome it is about to be stored with: the
 * one anyone recomputes later from the stored records. Null when the audit holds more than
 * {@link MAX_SCORED_RECORDS} records (a partial card would be a wrong one). NOTE: reads the run's partition only,
 * never its reasoning or its pseudonym map.
 */
export async function loadAuditScorecard(
  store: Pick<RunStore, 'listRunRecords'>,
  runId: string,
  outcome: RunOutcome,
): Promise<ProcessScorecard | null> {
  const steps: StoredStep[] = [];
  const tools: StoredToolInvocation[] = [];
  let cursor: string | undefined;
  let read = 0;
  do {
    const page = await store.listRunRecords(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    for (const record of page.records) {
      if (record.entity === 'agent_step') steps.push(record);
      else if (record.entity === 'tool_invocation') tools.push(record);
    }
    read += page.records.length;
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined && read < MAX_SCORED_RECORDS);
  if (cursor !== undefined) return null;
  return buildProcessScorecard(scoredRunOf(outcome), steps, tools);
}

/**
 * The scorecard of a run that never ran (closed or cancelled while QUEUED). NOTE: its audit is empty by the run's
 * lifecycle — steps and tool invocations are written only by the invocation that claimed it, and a claim makes it
 * RUNNING — so it is built from no records, without a read (the functions that close QUEUED runs need no Query).
 */
export function neverRanScorecard(outcome: RunOutcome): ProcessScorecard {
  return buildProcessScorecard(scoredRunOf(outcome), [], []);
}
