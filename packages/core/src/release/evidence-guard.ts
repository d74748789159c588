import type { DiagnosisExecution } from '../agent/run-diagnosis.ts';
import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import type { VerifiedCitation } from '../store/run-store.ts';

export type EvidenceGuardCode =
  | 'GUARD_UNKNOWN_CITATION'
  | 'GUARD_SUPPORTED_WITHOUT_EVIDENCE'
  | 'GUARD_CITES_ONLY_NO_GAIN'
  | 'GUARD_NO_EVIDENCE_NOT_EMPTY'
  | 'GUARD_CONCLUSION_UNSUPPORTED';

export type EvidenceGuardResult =
  | { ok: true; citations: VerifiedCitation[] }
  | { ok: false; code: EvidenceGuardCode; analysisIndex: number | null };

/**
 * Checks a Draft against the run's own canonical checks, deterministically: every cited `tool_call_id` is a READY
 * check of this run; a SUPPORTED item cites at least one non-empty READY check, and at least one of those is not a
 * check the model itself judged `NO_GAIN`; a NO_EVIDENCE item cites only empty READY checks; a non-null conclusion has
 * at least one verified FINDING. Returns the verified citations, in the order the Draft first cites them, or the first
 * failure.
 *
 * NOTE: a check still `PENDING` (the last result, after which the model wrote the Draft) counts as usable evidence:
 * the protocol asks for an evaluation only in the envelope of the next tool call, so the model never has a chance to
 * evaluate the last result before the Draft, and the Draft citing it is that evaluation. A check judged `NO_GAIN` is
 * one the model itself said advanced nothing; resting a SUPPORTED claim on it alone contradicts the model's own word.
 */
export function verifyDraftEvidence(draft: DiagnosisDraft, progress: ProgressSnapshot): EvidenceGuardResult {
  const ready = new Map(
    progress.checks.filter((check) => check.status === 'READY').map((check) => [check.toolCallId, check]),
  );
  const citations = new Map<string, VerifiedCitation>();
  let verifiedFinding = false;
  for (const [index, item] of draft.analysis.entries()) {
    const cited = item.tool_call_ids.map((id) => ready.get(id));
    if (cited.some((check) => check === undefined))
      return { ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: index };
    const checks = cited.filter((check) => check !== undefined);
    if (item.evidence_status === 'SUPPORTED' && !checks.some((check) => !check.empty)) {
      return { ok: false, code: 'GUARD_SUPPORTED_WITHOUT_EVIDENCE', analysisIndex: index };
    }
    if (
      item.evidence_status === 'SUPPORTED' &&
      !checks.some((check) => !check.empty && check.evaluation !== 'NO_GAIN')
    ) {
      return { ok: false, code: 'GUARD_CITES_ONLY_NO_GAIN', analysisIndex: index };
    }
    if (item.evidence_status === 'NO_EVIDENCE' && checks.some((check) => !check.empty)) {
      return { ok: false, code: 'GUARD_NO_EVIDENCE_NOT_EMPTY', analysisIndex: index };
    }
    if (item.type === 'FINDING' && item.evidence_status === 'SUPPORTED') verifiedFinding = true;
    for (const check of checks) {
      if (!citations.has(check.toolCallId)) {
        citations.set(check.toolCallId, {
          tool_call_id: check.toolCallId,
          tool_name: check.toolName,
          empty: check.empty,
        });
      }
    }
  }
  if (draft.conclusion !== null && !verifiedFinding)
    return { ok: false, code: 'GUARD_CONCLUSION_UNSUPPORTED', analysisIndex: null };
  return { ok: true, citations: [...citations.values()] };
}

/**
 * The EvidenceGuard on a run's execution, taken once per run: its result is the verified snapshot that the
 * SemanticGuard judges from (`reviewDraftSemantics`) and that the release publishes from (`releaseDiagnosis`), so
 * neither checks the Draft again. Null when the execution has no Draft.
 */
export function verifyExecutionEvidence(
  execution: Pick<DiagnosisExecution, 'draft' | 'progress'>,
): EvidenceGuardResult | null {
  return execution.draft === null ? null : verifyDraftEvidence(execution.draft, execution.progress);
}

/**
 * The verified citations `draft` cites, in the order it first cites them, taken from a verified snapshot: how the
 * release names the checks of a Draft the SemanticGuard trimmed, without checking it again. NOTE: the judge only
 * removes items, each kept item passed the EvidenceGuard on its own, and a kept conclusion keeps every SUPPORTED
 * FINDING (`applyVerdicts` rejects the Draft otherwise), so the trimmed Draft passes the guard whenever the whole did.
 */
export function citationsOf(draft: DiagnosisDraft, verified: readonly VerifiedCitation[]): VerifiedCitation[] {
  const byId = new Map(verified.map((citation) => [citation.tool_call_id, citation]));
  const citations = new Map<string, VerifiedCitation>();
  for (const item of draft.analysis) {
    for (const id of item.tool_call_ids) {
      const citation = byId.get(id);
      if (citation !== undefined && !citations.has(id)) citations.set(id, citation);
    }
  }
  return [...citations.values()];
}
