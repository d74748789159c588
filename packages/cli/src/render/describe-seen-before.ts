import { printable, type SeenBefore } from '@diagnosis/core';

/** The heading of the past incidents a run met, in the terminal report and on the trace page. */
export const SEEN_BEFORE_HEADING = '见过的历史事件 Seen before';

/** What a past incident is to a reader of the run: where the agent met it, and what it is not (docs/memory.md). */
export const SEEN_BEFORE_NOTE =
  'past incidents of this enterprise the lookups returned: leads the agent was to check with this run’s logs and data, never evidence';

/**
 * One past incident a run met, in one line: `run 01KB3… · diagnosed 2026-11-02 06:10 UTC · rated CORRECT · returned
 * by call_2`. NOTE: only its ids, time and rating, all written by the service (the report's `seen_before`); its texts
 * stay in the lookup's observation, which the evidence shows like any other.
 */
export function describeSeenBefore(item: SeenBefore): string {
  const diagnosed = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(item.occurred_at)
    ? `${item.occurred_at.slice(0, 16).replace('T', ' ')} UTC`
    : item.occurred_at;
  const lookups = item.tool_call_ids.length === 0 ? '' : ` · returned by ${item.tool_call_ids.join(', ')}`;
  return printable(`run ${item.run_id} · diagnosed ${diagnosed} · rated ${item.rating}${lookups}`);
}
