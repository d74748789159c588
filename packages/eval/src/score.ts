/**
 * The scorer: what one run of a scenario shows, and the verdict against the scenario's `expected`. Pure functions
 * (unit-tested in test/unit/eval-score.test.ts): no I/O, no clock.
 */
import type { DiagnosisResult } from '@diagnosis/core';
import type { Expected, ScenarioVerdict } from './scenario.ts';

/** What the scorer reads of a run's result. */
export interface RunObservation {
  status: DiagnosisResult['status'];
  /** The published conclusion; null when the run abstained or published nothing. */
  conclusion: string | null;
  /** The published FINDING and HYPOTHESIS statements (what the run claims besides its conclusion). */
  claims: string[];
  /** Tool names of the verified citations. */
  citedTools: string[];
  /** The EvidenceGuard passed (the Draft was published or judged), or the run did not show it did. */
  evidenceGuard: 'PASSED' | 'NOT_REACHED';
  /** OFF: no judge; SUPPORTED: the judge found the conclusion supported; REJECTED / FAILED: it did not / could not. */
  semanticGuard: 'OFF' | 'SUPPORTED' | 'REJECTED' | 'FAILED';
  /** Claims the judge removed from the published result. */
  removedClaims: number;
  /** The stop reason or error code of a run that published nothing, for the scorecard. */
  cause: string | null;
  /**
   * Past incidents (docs/memory.md): `seen` the past runs the lookups returned (the report's `seen_before`),
   * `removed` the items the EvidenceGuard removed for resting on them alone.
   */
  pastIncidents: { seen: number; removed: number };
}

interface ScoreChecks {
  outcome: boolean;
  rootCause: boolean | null;
  requiredEvidence: boolean;
  forbiddenClaims: string[];
  missingEvidence: string[];
  guards: boolean;
}

export interface Score {
  verdict: ScenarioVerdict;
  /** The run abstained: published no conclusion (a Draft with conclusion null, or a FALLBACK). */
  abstained: boolean;
  checks: ScoreChecks;
  /** One line on why the verdict is what it is. */
  reason: string;
}

/** Points per verdict in the summary: a confidently wrong diagnosis costs more than any abstention. */
export const VERDICT_POINTS: Record<ScenarioVerdict, number> = {
  CORRECT: 1,
  INCOMPLETE: 0.5,
  ABSTAINED: 0,
  FAILED: 0,
  CONFIDENTLY_WRONG: -1,
};

/**
 * The observation with the run's pseudonyms replaced by their real values (`reveal`, from the run's own map). NOTE:
 * the scorer alone unmasks, and only to compare the run's words with the scenario's expectations, which name real
 * values; everything the run stored and showed stays masked.
 */
export function revealedObservation(observation: RunObservation, reveal: (text: string) => string): RunObservation {
  return {
    ...observation,
    conclusion: observation.conclusion === null ? null : reveal(observation.conclusion),
    claims: observation.claims.map(reveal),
  };
}

/** What the scorer needs of a run's result, read once. */
export function observeResult(result: DiagnosisResult): RunObservation {
  const report = result.report;
  if (report.kind === 'DIAGNOSIS') {
    // NOTE: the published Draft is already without the items the judge removed (`semantic_guard.removed` indexes the
    // agent's Draft, not this one): filtering by those indexes again would drop published claims.
    const claims = report.draft.analysis
      .filter((item) => item.type !== 'NEGATIVE_OBSERVATION')
      .map((item) => item.statement);
    const judge = report.semantic_guard;
    return {
      status: result.status,
      conclusion: report.draft.conclusion,
      claims,
      citedTools: [...new Set(report.citations.map((citation) => citation.tool_name))],
      evidenceGuard: 'PASSED',
      semanticGuard:
        judge === undefined
          ? 'OFF'
          : judge.outcome === 'FAILED'
            ? 'FAILED'
            : judge.conclusion === null || judge.conclusion.verdict === 'SUPPORTED'
              ? 'SUPPORTED'
              : 'REJECTED',
      removedClaims: judge?.removed.length ?? 0,
      cause: null,
      pastIncidents: { seen: report.seen_before?.length ?? 0, removed: report.evidence_guard?.removed.length ?? 0 },
    };
  }
  if (report.kind === 'FALLBACK') {
    const judge = report.semantic_guard;
    return {
      status: result.status,
      conclusion: null,
      claims: [],
      citedTools: [],
      // NOTE: the judge only sees a Draft that passed the EvidenceGuard; without it, the report does not say which.
      evidenceGuard: judge === undefined ? 'NOT_REACHED' : 'PASSED',
      semanticGuard: judge === undefined ? 'OFF' : judge.outcome === 'FAILED' ? 'FAILED' : 'REJECTED',
      removedClaims: 0,
      cause: report.stop_reason ?? report.reason,
      pastIncidents: { seen: 0, removed: report.evidence_guard?.removed.length ?? 0 },
    };
  }
  return {
    status: result.status,
    conclusion: null,
    claims: [],
    citedTools: [],
    evidenceGuard: 'NOT_REACHED',
    semanticGuard: 'OFF',
    removedClaims: 0,
    cause: report.kind === 'FAILED' ? report.error_code : report.stop_reason,
    pastIncidents: { seen: 0, removed: 0 },
  };
}

/** Case-insensitive, width-insensitive text for keyword matching (full-width Ｈｉｋａｒｉ matches Hikari). */
function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

function contains(haystack: string, needle: string): boolean {
  return normalizeText(haystack).includes(normalizeText(needle));
}

/**
 * The verdict of one run. Order of the checks: no result at all is FAILED; any forbidden claim, a conclusion where
 * abstaining was expected, or a conclusion that names no expected root cause is CONFIDENTLY_WRONG; an abstention
 * where a diagnosis was expected is ABSTAINED; a right diagnosis missing required evidence or with a guard that
 * objected is INCOMPLETE; else CORRECT.
 */
export function scoreRun(expected: Expected, run: RunObservation): Score {
  const published = run.status === 'PUBLISHED';
  const abstained = run.status === 'FALLBACK' || (published && run.conclusion === null);
  const texts = [run.conclusion ?? '', ...run.claims];
  const forbiddenClaims = expected.mustNotClaim.filter((phrase) => texts.some((text) => contains(text, phrase)));
  const rootCause =
    expected.rootCause === undefined || run.conclusion === null
      ? null
      : expected.rootCause.anyOf.some((group) => group.every((keyword) => contains(run.conclusion as string, keyword)));
  const missingEvidence = abstained ? [] : expected.requiredEvidence.filter((tool) => !run.citedTools.includes(tool));
  const guards = published && run.evidenceGuard === 'PASSED' && run.semanticGuard !== 'FAILED';
  const outcome = expected.outcome === 'ABSTAIN' ? abstained : published && run.conclusion !== null;
  const checks: ScoreChecks = {
    outcome,
    rootCause,
    requiredEvidence: missingEvidence.length === 0,
    forbiddenClaims,
    missingEvidence,
    guards,
  };
  const score = (verdict: ScenarioVerdict, reason: string): Score => ({ verdict, abstained, checks, reason });

  if (run.status === 'FAILED' || run.status === 'CANCELLED') {
    return score(
      'FAILED',
      `the run ${run.status === 'FAILED' ? 'failed' : 'was cancelled'} (${run.cause ?? 'no cause'})`,
    );
  }
  if (forbiddenClaims.length > 0) {
    return score('CONFIDENTLY_WRONG', `claims what must not be claimed: ${forbiddenClaims.join(' / ')}`);
  }
  if (expected.outcome === 'ABSTAIN') {
    return abstained
      ? score('CORRECT', 'abstained, as the evidence does not support a conclusion')
      : score('CONFIDENTLY_WRONG', 'published a conclusion where the evidence supports none');
  }
  if (abstained) {
    return score('ABSTAINED', `abstained (${run.cause ?? 'no conclusion'}) where a diagnosis was expected`);
  }
  if (rootCause !== true) return score('CONFIDENTLY_WRONG', 'the conclusion names none of the expected root causes');
  if (missingEvidence.length > 0) {
    return score('INCOMPLETE', `right root cause, but no verified citation of ${missingEvidence.join(', ')}`);
  }
  if (!guards) return score('INCOMPLETE', 'right root cause, but a guard did not pass');
  return score('CORRECT', 'right root cause with the required evidence');
}
