import type { PreviousTurn } from '../draft/previous-turn.ts';
import type { RunLimits } from '../run/run-limits.ts';
import { truncateChars, utf8Bytes } from '../run/utf8.ts';
import { isPublishedDiagnosis, type StoredRun } from '../store/run-store.ts';

const MAX_ITEMS = 5;
/** The longest an item is kept; it is halved until the turn fits, down to {@link SMALLEST_ITEM_CHARS}. */
const LARGEST_ITEM_CHARS = 1_000;
const SMALLEST_ITEM_CHARS = 15;
/** The query is kept this long while items are cut, so the turn still says what was asked. */
const QUERY_KEPT_CHARS = 200;

/**
 * The PreviousTurn of a stored run, or null when there is no run or it may not feed a follow-up: only a DIAGNOSIS
 * that SUCCEEDED with a published result. It carries the published conclusion, the SUPPORTED findings and the missing
 * information — never raw evidence, tool results or reasoning — and is cut to fit the run's own
 * `maxPreviousTurnBytes` (pass `run.limits`): items are shortened first, then the last list entries are dropped, then
 * the query is shortened. NOTE: the limit's minimum (`MIN_PREVIOUS_TURN_BYTES`) always holds the smallest form,
 * so the turn built here always passes the run's own input check.
 */
export function buildPreviousTurn(
  run: StoredRun | null,
  limits: Pick<RunLimits, 'maxPreviousTurnBytes'>,
): PreviousTurn | null {
  if (run === null || !isPublishedDiagnosis(run)) return null;
  const { draft } = run.publishedResult;
  const findings = draft.analysis
    .filter((item) => item.type === 'FINDING' && item.evidence_status === 'SUPPORTED')
    .map((item) => item.statement)
    .slice(0, MAX_ITEMS);
  const missing = draft.limitations.missing_info.slice(0, MAX_ITEMS);
  const build = (itemChars: number, queryChars: number, keptFindings: number, keptMissing: number): PreviousTurn =>
    Object.freeze({
      run_id: run.runId,
      query: truncateChars(run.query, queryChars),
      conclusion: draft.conclusion === null ? null : truncateChars(draft.conclusion, itemChars),
      findings: Object.freeze(findings.slice(0, keptFindings).map((finding) => truncateChars(finding, itemChars))),
      missing_info: Object.freeze(missing.slice(0, keptMissing).map((item) => truncateChars(item, itemChars))),
    });

  let smallest: PreviousTurn | null = null;
  for (const turn of candidates(build, findings.length, missing.length)) {
    if (utf8Bytes(JSON.stringify(turn)) <= limits.maxPreviousTurnBytes) return turn;
    smallest = turn;
  }
  return smallest;
}

/** The cuts of a turn, largest first. */
function* candidates(
  build: (itemChars: number, queryChars: number, keptFindings: number, keptMissing: number) => PreviousTurn,
  findings: number,
  missing: number,
): Generator<PreviousTurn> {
  let itemChars = LARGEST_ITEM_CHARS;
  for (; itemChars > SMALLEST_ITEM_CHARS; itemChars = Math.floor(itemChars / 2)) {
    yield build(itemChars, Math.max(itemChars, QUERY_KEPT_CHARS), findings, missing);
  }
  for (let kept = missing; kept >= 0; kept -= 1) yield build(itemChars, QUERY_KEPT_CHARS, findings, kept);
  for (let kept = findings - 1; kept >= 0; kept -= 1) yield build(itemChars, QUERY_KEPT_CHARS, kept, 0);
  yield build(itemChars, itemChars, 0, 0);
}
