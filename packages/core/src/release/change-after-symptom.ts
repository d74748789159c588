import type { ChangePlacement } from '../change/change-placement.ts';
import type { AnalysisItem } from '../draft/diagnosis-draft.ts';

/** One change a change-stream check returned, as the model saw it (masked): its id, its ref and where code placed it. */
export interface ChangeCheckRow {
  changeId: string;
  /** When it landed (as the row says). */
  at: string;
  /** The service it changed ('' when its source names none): never taken as naming the change. */
  service: string;
  kind: string;
  ref: string | null;
  summary: string;
  url: string | null;
  placement: ChangePlacement | null;
}

/**
 * A change a published item names, as the report shows it beside the citations: when it landed, what, where to read
 * more, where code placed it, and the checks that returned it. NOTE: its texts are as the model saw them (masked).
 */
export interface CitedChange {
  change_id: string;
  at: string;
  service: string | null;
  kind: string;
  ref: string | null;
  summary: string;
  url: string | null;
  placement: ChangePlacement | null;
  tool_call_ids: string[];
}

/**
 * The changes the Draft's items name among the change-stream checks each cites (by the same rule the EvidenceGuard
 * reads blame with), first named first, each once with every check of it that an item cited.
 */
export function citedChangesOf(analysis: readonly AnalysisItem[], changeChecks: ChangeChecks): CitedChange[] {
  const cited = new Map<string, CitedChange>();
  for (const item of analysis) {
    const statement = item.statement.toLowerCase();
    for (const id of item.tool_call_ids) {
      for (const row of changeChecks.get(id) ?? []) {
        if (!namesChange(statement, row)) continue;
        const known = cited.get(row.changeId);
        if (known === undefined) {
          cited.set(row.changeId, {
            change_id: row.changeId,
            at: row.at,
            service: row.service === '' ? null : row.service,
            kind: row.kind,
            ref: row.ref,
            summary: row.summary,
            url: row.url,
            placement: row.placement,
            tool_call_ids: [id],
          });
        } else if (!known.tool_call_ids.includes(id)) known.tool_call_ids.push(id);
      }
    }
  }
  return [...cited.values()];
}

/** The run's change-stream checks: per tool call id, the changes it returned (only checks that returned some). */
export type ChangeChecks = ReadonlyMap<string, readonly ChangeCheckRow[]>;

/**
 * Whether a FINDING blames a change that landed after the symptom began — one that cannot have caused it. Decided by
 * code from the changes of the change-stream checks the finding cites:
 * - when its statement names some of them (the change's `change_id`, or a token of its ref of six characters or more,
 *   other than its service's name, or a commit's first seven), it blames them, and is removed when every change it names landed `AFTER_SYMPTOM`
 *   (a finding that names an earlier change beside a later one keeps its place: it may blame the earlier);
 * - when it names none and cites nothing but change-stream checks, it rests on their changes alone, and is removed
 *   when every one of them landed `AFTER_SYMPTOM`.
 * Changes the run could not place (no incident: `null`) are never grounds to remove. HYPOTHESIS and
 * NEGATIVE_OBSERVATION items are kept: neither blames.
 */
export function blamesChangeAfterSymptom(item: AnalysisItem, changeChecks: ChangeChecks): boolean {
  if (item.type !== 'FINDING' || changeChecks.size === 0) return false;
  const rows = item.tool_call_ids.flatMap((id) => changeChecks.get(id) ?? []);
  if (rows.length === 0) return false;
  const statement = item.statement.toLowerCase();
  const named = rows.filter((row) => namesChange(statement, row));
  if (named.length > 0) return named.every((row) => row.placement === 'AFTER_SYMPTOM');
  const onlyChanges = item.tool_call_ids.every((id) => changeChecks.has(id));
  return onlyChanges && rows.every((row) => row.placement === 'AFTER_SYMPTOM');
}

const MIN_REF_TOKEN = 6;
const SHORT_COMMIT = 7;

/** Whether a lower-cased statement names a change: by its id, or by a distinctive part of its ref. */
function namesChange(statement: string, row: ChangeCheckRow): boolean {
  if (statement.includes(row.changeId.toLowerCase())) return true;
  if (row.ref === null) return false;
  return row.ref
    .toLowerCase()
    .split(/[^a-z0-9._-]+/)
    .filter((token) => token.length >= MIN_REF_TOKEN && token !== row.service.toLowerCase())
    .some(
      (token) =>
        statement.includes(token) ||
        (/^[0-9a-f]{12,}$/.test(token) && statement.includes(token.slice(0, SHORT_COMMIT))),
    );
}
