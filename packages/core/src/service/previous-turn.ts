import type { PreviousTurn } from '../draft/previous-turn.ts';
import { DEFAULT_RUN_LIMITS } from '../run/run-limits.ts';
import { truncateChars, utf8Bytes } from '../run/utf8.ts';
import { isPublishedDiagnosis, type StoredRun } from '../store/run-store.ts';

const MAX_ITEMS = 5;

/**
 * The PreviousTurn of a stored run, or null when there is no run or it may not feed a follow-up: only a DIAGNOSIS
 * that SUCCEEDED with a published result. It carries the published conclusion, the SUPPORTED findings and the missing
 * information — never raw evidence, tool results or reasoning — and is cut to fit `maxBytes`.
 */
export function buildPreviousTurn(
  run: StoredRun | null,
  maxBytes = DEFAULT_RUN_LIMITS.maxPreviousTurnBytes,
): PreviousTurn | null {
  if (run === null || !isPublishedDiagnosis(run)) return null;
  const { draft } = run.publishedResult;
  const findings = draft.analysis
    .filter((item) => item.type === 'FINDING' && item.evidence_status === 'SUPPORTED')
    .map((item) => item.statement)
    .slice(0, MAX_ITEMS);
  const missing = draft.limitations.missing_info.slice(0, MAX_ITEMS);
  let itemChars = 1_000;
  for (;;) {
    const turn: PreviousTurn = Object.freeze({
      run_id: run.runId,
      query: truncateChars(run.query, Math.max(itemChars, 200)),
      conclusion: draft.conclusion === null ? null : truncateChars(draft.conclusion, itemChars),
      findings: Object.freeze(findings.map((finding) => truncateChars(finding, itemChars))),
      missing_info: Object.freeze(missing.map((item) => truncateChars(item, itemChars))),
    });
    if (utf8Bytes(JSON.stringify(turn)) <= maxBytes || itemChars <= 20) return turn;
    itemChars = Math.floor(itemChars / 2);
  }
}
