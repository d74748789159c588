import type { DiagnosisExecution } from '../agent/run-diagnosis.ts';
import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import { truncateChars } from '../run/utf8.ts';
import type { VerifiedCitation } from '../store/run-store.ts';
import { blamesChangeAfterSymptom, type ChangeChecks } from './change-after-symptom.ts';
import { removedClaimName } from './release-texts.ts';

/**
 * What of a run's lookups stands for past incidents, as the EvidenceGuard takes it. A past incident is citable by its
 * own id (its hit's `doc_id`, `past-incident:<runId>`), and a lookup's tool call id stands for its runbook hits only,
 * so each is judged as what it is. NOTE: a lookup that returned past incidents and no runbook hit has nothing else to
 * stand for: its id counts as past incidents.
 */
export interface PastIncidentCitations {
  /** Each past incident's own id → the lookup call that first returned it. */
  incidents: ReadonlyMap<string, string>;
  /** The lookups whose hits were past incidents alone. */
  memoryOnlyLookups: ReadonlySet<string>;
}

const NO_PAST_INCIDENTS: PastIncidentCitations = Object.freeze({
  incidents: new Map<string, string>(),
  memoryOnlyLookups: new Set<string>(),
});

type Check = ProgressSnapshot['checks'][number];

/**
 * The run's READY checks by id, with each past incident a lookup returned as a check of its own: READY, not empty, the
 * lookup's tool and the model's evaluation of that lookup. NOTE: a check the model itself named like a past incident
 * keeps its entry, and the id still counts as a past incident (`pastIds`).
 */
function readyChecks(progress: ProgressSnapshot, pastIncidents: PastIncidentCitations): Map<string, Check> {
  const ready = new Map(
    progress.checks.filter((check) => check.status === 'READY').map((check) => [check.toolCallId, check]),
  );
  for (const [id, lookupId] of pastIncidents.incidents) {
    const lookup = ready.get(lookupId);
    if (lookup === undefined || ready.has(id)) continue;
    ready.set(id, { ...lookup, toolCallId: id, empty: false });
  }
  return ready;
}

/** The ids that stand for past incidents: each past incident's own id, and every lookup that returned nothing else. */
function pastIds(pastIncidents: PastIncidentCitations): ReadonlySet<string> {
  return new Set([...pastIncidents.incidents.keys(), ...pastIncidents.memoryOnlyLookups]);
}

export type EvidenceGuardCode =
  | 'GUARD_UNKNOWN_CITATION'
  | 'GUARD_SUPPORTED_WITHOUT_EVIDENCE'
  | 'GUARD_CITES_ONLY_NO_GAIN'
  | 'GUARD_NO_EVIDENCE_NOT_EMPTY'
  | 'GUARD_CONCLUSION_UNSUPPORTED';

/**
 * Why the EvidenceGuard took an item out of a Draft before checking the rest: `GUARD_PAST_INCIDENT_ONLY`, a FINDING or
 * NEGATIVE_OBSERVATION whose only non-empty evidence is past incidents (a past incident is a
 * lead to check with today's data, never evidence about today); `GUARD_CHANGE_AFTER_SYMPTOM`, a FINDING that blames a
 * change which landed after the symptom began (placed by code; see `blamesChangeAfterSymptom`).
 */
type EvidenceGuardRemovalCode = 'GUARD_PAST_INCIDENT_ONLY' | 'GUARD_CHANGE_AFTER_SYMPTOM';

/** One item the EvidenceGuard removed: its index in the agent's Draft and the stable reason. */
export interface EvidenceGuardRemoval {
  index: number;
  code: EvidenceGuardRemovalCode;
}

/**
 * The EvidenceGuard's result. `draft` and `removed` are present only when it removed items: `draft` is then the Draft
 * checked and to be judged and published (the agent's without them, each listed first in `missing_info`).
 */
export type EvidenceGuardResult =
  | { ok: true; citations: VerifiedCitation[]; draft?: DiagnosisDraft; removed?: EvidenceGuardRemoval[] }
  | { ok: false; code: EvidenceGuardCode; analysisIndex: number | null; removed?: EvidenceGuardRemoval[] };

/**
 * Checks a Draft against the run's own canonical checks, deterministically: every cited `tool_call_id` is a READY
 * check of this run or a past incident one of its lookups returned (`pastIncidents`); a SUPPORTED item cites at least one non-empty READY check, and at least one of those is not a
 * check the model itself judged `NO_GAIN`; a NO_EVIDENCE item cites only empty READY checks; a non-null conclusion has
 * at least one verified FINDING. Returns the verified citations, in the order the Draft first cites them, or the first
 * failure.
 *
 * NOTE: a check still `PENDING` (the last result, after which the model wrote the Draft) counts as usable evidence:
 * the protocol asks for an evaluation only in the envelope of the next tool call, so the model never has a chance to
 * evaluate the last result before the Draft, and the Draft citing it is that evaluation. A check judged `NO_GAIN` is
 * one the model itself said advanced nothing; resting a SUPPORTED claim on it alone contradicts the model's own word.
 */
export function verifyDraftEvidence(
  draft: DiagnosisDraft,
  progress: ProgressSnapshot,
  pastIncidents: PastIncidentCitations = NO_PAST_INCIDENTS,
  changeChecks: ChangeChecks = new Map(),
): EvidenceGuardResult {
  const ready = readyChecks(progress, pastIncidents);
  const removal = removePastIncidentOnly(draft, ready, pastIds(pastIncidents), changeChecks);
  if (removal === null) return verifyCitations(draft, ready);
  const result = verifyCitations(removal.draft, ready);
  if (!result.ok) return { ...result, removed: removal.removed };
  return { ...result, draft: removal.draft, removed: removal.removed };
}

function verifyCitations(draft: DiagnosisDraft, ready: ReadonlyMap<string, Check>): EvidenceGuardResult {
  const citations = new Map<string, VerifiedCitation>();
  let verifiedFinding = false;
  for (const [index, item] of draft.analysis.entries()) {
    const checks = item.tool_call_ids.map((id) => ready.get(id));
    if (!checks.every((check) => check !== undefined))
      return { ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: index };
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
  pastIncidents: PastIncidentCitations = NO_PAST_INCIDENTS,
  changeChecks: ChangeChecks = new Map(),
): EvidenceGuardResult | null {
  return execution.draft === null
    ? null
    : verifyDraftEvidence(execution.draft, execution.progress, pastIncidents, changeChecks);
}

/** The most limitation lines a Draft may hold, and their length (the Draft schema's bounds). */
const MAX_LIMITATION_LINES = 10;
const MAX_LIMITATION_CHARS = 300;

/**
 * The Draft without its items that rest on past incidents alone, or null when it has none. An item is removed when it
 * claims something about today (a SUPPORTED FINDING or NEGATIVE_OBSERVATION; a HYPOTHESIS may rest on a past
 * incident: that is what one is for), every id it cites is a READY check, and its only usable support is past
 * incidents (`restsOnPastIncidentsAlone`). NOTE: a past incident counts by its own id, applied per citation: a lookup
 * that returned runbooks beside past incidents stands for its runbooks, so an item citing it rests on them. A FINDING that
 * blames a change which landed after the symptom began is removed too (`blamesChangeAfterSymptom`), with its own code.
 */
function removePastIncidentOnly(
  draft: DiagnosisDraft,
  ready: ReadonlyMap<string, Check>,
  pastIncidentChecks: ReadonlySet<string>,
  changeChecks: ChangeChecks,
): { draft: DiagnosisDraft; removed: EvidenceGuardRemoval[] } | null {
  if (pastIncidentChecks.size === 0 && changeChecks.size === 0) return null;
  const removed: EvidenceGuardRemoval[] = [];
  const lines: string[] = [];
  for (const [index, item] of draft.analysis.entries()) {
    if (item.type === 'HYPOTHESIS' || item.evidence_status !== 'SUPPORTED') continue;
    const checks = item.tool_call_ids.map((id) => ready.get(id));
    if (!checks.every((check) => check !== undefined)) continue;
    if (restsOnPastIncidentsAlone(checks, pastIncidentChecks)) {
      removed.push({ index, code: 'GUARD_PAST_INCIDENT_ONLY' });
      lines.push(
        truncateChars(
          `证据校验已移除${removedClaimName('analysis', index, item.type)}——它只引用了历史事件（past_incident），历史事件只是待用本次日志与数据核实的线索，不是本次故障的证据。`,
          MAX_LIMITATION_CHARS,
        ),
      );
    } else if (blamesChangeAfterSymptom(item, changeChecks)) {
      removed.push({ index, code: 'GUARD_CHANGE_AFTER_SYMPTOM' });
      lines.push(
        truncateChars(
          `证据校验已移除${removedClaimName('analysis', index, item.type)}——它归咎的变更在症状开始之后才落地（AFTER_SYMPTOM），不可能是本次症状的原因。`,
          MAX_LIMITATION_CHARS,
        ),
      );
    }
  }
  if (removed.length === 0) return null;
  const gone = new Set(removed.map((removal) => removal.index));
  const combined = [...lines, ...draft.limitations.missing_info];
  const missing =
    combined.length <= MAX_LIMITATION_LINES
      ? combined
      : [
          ...combined.slice(0, MAX_LIMITATION_LINES - 1),
          `另有 ${combined.length - MAX_LIMITATION_LINES + 1} 条限制未列出，见本次运行的审计记录（草稿）。`,
        ];
  return {
    removed,
    draft: {
      ...draft,
      analysis: draft.analysis.filter((_item, index) => !gone.has(index)),
      limitations: { ...draft.limitations, missing_info: missing },
    },
  };
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

/**
 * Whether an item citing `checks` rests on past incidents alone: the guard's two rules composed, so that neither is
 * passed by leaning on the other. An item cites past incidents, and no check of today's that it cites is usable
 * (non-empty and not judged `NO_GAIN` by the model itself). NOTE: a check judged NO_GAIN beside a past incident is no
 * support about today, so the item is removed; an item with no past incident at all is the other rule's to judge.
 */
function restsOnPastIncidentsAlone(checks: readonly Check[], pastIncidentChecks: ReadonlySet<string>): boolean {
  const evidence = checks.filter((check) => !check.empty);
  const past = evidence.filter((check) => pastIncidentChecks.has(check.toolCallId));
  if (past.length === 0) return false;
  return !evidence.some((check) => !pastIncidentChecks.has(check.toolCallId) && check.evaluation !== 'NO_GAIN');
}
