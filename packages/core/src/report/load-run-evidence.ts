import type { RunStore, StoredRun, StoredToolInvocation } from '../store/run-store.ts';
import { buildRunEvidence, type RunEvidence } from './citation-evidence.ts';

/** The most records read for one run's evidence: far more than a run writes (8 rounds × at most 100 tool calls). */
export const MAX_EVIDENCE_RECORDS = 2_000;

/**
 * A run and the evidence behind its citations (see {@link buildRunEvidence}), read from the store a page at a time:
 * its run item and tool invocations only, never its raw reasoning. Null when there is no such run. Given the run
 * itself (a caller that has just read it), only its tool invocations are read: one request fewer. NOTE: the caller
 * decides who may read the run; this reads whatever run it is given.
 */
export async function loadRunEvidence(
  store: Pick<RunStore, 'getRun' | 'listRunRecords'>,
  runOrId: string | StoredRun,
): Promise<{ run: StoredRun; evidence: RunEvidence } | null> {
  const run = typeof runOrId === 'string' ? await store.getRun(runOrId) : runOrId;
  if (run === null) return null;
  const { runId } = run;
  const tools: StoredToolInvocation[] = [];
  let cursor: string | undefined;
  let read = 0;
  do {
    const page = await store.listRunRecords(runId, { limit: 100, ...(cursor === undefined ? {} : { cursor }) });
    for (const record of page.records) if (record.entity === 'tool_invocation') tools.push(record);
    read += page.records.length;
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined && read < MAX_EVIDENCE_RECORDS);
  return { run, evidence: buildRunEvidence(run, tools) };
}
