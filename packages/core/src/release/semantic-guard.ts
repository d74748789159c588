import { generateText, type LanguageModel } from 'ai';
import type { DiagnosisExecution } from '../agent/run-diagnosis.ts';
import type { SemanticGuardMode } from '../config/semantic-guard-mode.ts';
import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import { judgePromptFits, judgeVerdictTooLarge } from '../harness/budget-policy.ts';
import { classifyModelFailure } from '../harness/classify-model-failure.ts';
import { createJudgeHarness, type JudgeFailure } from '../harness/create-judge-harness.ts';
import { modelTelemetry } from '../harness/model-telemetry.ts';
import { raceAbort } from '../harness/race-abort.ts';
import { type ModelFailure, type ModelFailureReport, modelFailureReport } from '../run/model-failure.ts';
import type { RunContext } from '../run/run-context.ts';
import { truncateChars, utf8Bytes } from '../run/utf8.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import type { Observation } from '../tools/observation.ts';
import type { EvidenceGuardResult } from './evidence-guard.ts';
import { DEFAULT_JUDGE_LIMITS, type JudgeLimits } from './judge/judge-limits.ts';
import { type IndexedVerdict, type JudgeVerdicts, parseJudgeVerdicts, type Verdict } from './judge/judge-verdicts.ts';
import {
  buildJudgeEvidence,
  buildJudgePrompt,
  buildSemanticGuardInstructions,
  judgedTexts,
} from './judge/semantic-guard-prompt.ts';
import { removedClaimName } from './release-texts.ts';

/** The SemanticGuard as a run is given it: its mode, the judge's own model and its budget. */
export interface SemanticGuardConfig {
  mode: SemanticGuardMode;
  /** The judge's model: its own object (built from SEMANTIC_GUARD_MODEL_ID), never the agent's. */
  model: LanguageModel;
  limits?: Partial<JudgeLimits>;
}

/** What the SemanticGuard said of a Draft: its verdicts, or why it could not give them. */
export type SemanticReview =
  | { mode: 'enforce' | 'shadow'; modelId: string; outcome: 'JUDGED'; verdicts: JudgeVerdicts }
  | {
      mode: 'enforce' | 'shadow';
      modelId: string;
      outcome: 'FAILED';
      failure: JudgeFailure;
      /** For MODEL_FAILED: how the judge's request failed (status, class; never a body or a key). */
      modelFailure?: ModelFailure;
      /**
       * For AUDIT_FAILED: what the audit of the judge's step threw (an `AuditFailure` and its cause). NOTE: only for the
       * run's log line, which names its classes and AWS error codes (issue 32 item 13); never reported or stored.
       */
      auditError?: unknown;
    };

const INSTRUCTIONS = buildSemanticGuardInstructions();

/**
 * The SemanticGuard: one model call outside the agent's loop, with no tools and its own instructions, asking a judge
 * whether each claim a Draft would publish (its conclusion, analysis items, recommendations and action-plan steps) is
 * supported by the evidence the Draft cites. It judges only a Draft that passed the EvidenceGuard (anything else is
 * not published anyway), and it sees only the query, those claims and the verified evidence snapshot (the observations the agent saw, from the run's
 * audit events). NOTE: it is handed the EvidenceGuard's result (`verifyExecutionEvidence`, taken once per run, which
 * the release is handed too); it never checks the Draft itself. Its budget is its own (`JudgeLimits`, enforced by
 * `createJudgeHarness`); its call and tokens count in the run's usage and are audited as a JUDGE step. Returns null
 * when there is nothing to judge (mode off, no Draft, a Draft that failed the EvidenceGuard, or one with neither
 * conclusion, analysis nor advice). Never throws for the judge's failures: they are a `FAILED` review, which the release
 * turns into a fail-closed FALLBACK in enforce mode.
 */
export async function reviewDraftSemantics(
  input: {
    run: RunContext;
    query: string;
    execution: DiagnosisExecution;
    /** The EvidenceGuard's result on `execution.draft` (null: no Draft). */
    evidenceGuard: EvidenceGuardResult | null;
    observations: ReadonlyMap<string, Observation>;
  },
  guard: SemanticGuardConfig,
  audit?: AuditHook,
): Promise<SemanticReview | null> {
  const { run, execution, evidenceGuard: verified } = input;
  if (guard.mode === 'off' || execution.draft === null || verified === null || !verified.ok) return null;
  // NOTE: the Draft the EvidenceGuard checked: without the items it removed (resting on past incidents alone).
  const draft = verified.draft ?? execution.draft;
  if (
    draft.conclusion === null &&
    draft.analysis.length === 0 &&
    draft.recommendations.length === 0 &&
    draft.action_plan.length === 0
  ) {
    return null;
  }
  const { mode } = guard;
  const limits = { ...DEFAULT_JUDGE_LIMITS, ...guard.limits };
  const modelId = typeof guard.model === 'string' ? guard.model : guard.model.modelId;
  const failed = (failure: JudgeFailure, modelFailure?: ModelFailure, auditError?: unknown): SemanticReview => ({
    mode,
    modelId,
    outcome: 'FAILED',
    failure,
    ...(modelFailure === undefined ? {} : { modelFailure }),
    ...(auditError === undefined ? {} : { auditError }),
  });

  const evidence = buildJudgeEvidence(verified.citations, input.observations, limits, judgedTexts(input.query, draft));
  const prompt = buildJudgePrompt(input.query, draft, verified.citations, evidence);
  if (!judgePromptFits(limits, utf8Bytes(INSTRUCTIONS) + utf8Bytes(prompt))) return failed('PROMPT_TOO_LARGE');
  if (run.signal?.aborted) return failed('CANCELLED');
  const judge = createJudgeHarness({ run, model: guard.model, limits, audit });
  if (judge === null) return failed('NO_TIME');
  try {
    const result = await raceAbort(
      generateText({
        model: judge.model,
        instructions: INSTRUCTIONS,
        prompt,
        maxRetries: 0,
        maxOutputTokens: judge.maxOutputTokens,
        abortSignal: judge.abortSignal,
        runtimeContext: { runId: run.runId, sessionId: run.sessionId },
        telemetry: modelTelemetry({ functionId: 'semantic_guard' }),
      }),
      judge.abortSignal,
    );
    if (judgeVerdictTooLarge(limits, utf8Bytes(result.text))) return failed('INVALID_OUTPUT');
    const parsed = parseJudgeVerdicts(result.text, draft);
    return parsed.ok ? { mode, modelId, outcome: 'JUDGED', verdicts: parsed.verdicts } : failed('INVALID_OUTPUT');
  } catch (error) {
    const failure = judge.classify(error);
    // NOTE: the judge's own request failure, classified as the agent's are, so a 401 from the judge's endpoint says
    // which key to check instead of a bare MODEL_FAILED.
    if (failure === 'AUDIT_FAILED') return failed(failure, undefined, error);
    return failed(failure, failure === 'MODEL_FAILED' ? classifyModelFailure(error) : undefined);
  } finally {
    judge.dispose();
  }
}

/** How an enforcing SemanticGuard's verdicts change a Draft: the indexes (in the Draft) of what it removed. */
export type SemanticDecision =
  | { kind: 'REJECTED' }
  | {
      kind: 'ACCEPTED';
      draft: DiagnosisDraft;
      removed: number[];
      removedRecommendations: number[];
      removedActionPlan: number[];
    };

/** The most limitation lines a Draft may hold (its schema's bound). */
const MAX_LIMITATION_LINES = 10;
const MAX_LIMITATION_CHARS = 300;

/**
 * Applies the verdicts as enforce mode does. A conclusion is published only when the judge calls it SUPPORTED and
 * every SUPPORTED FINDING (what a conclusion rests on) is SUPPORTED too; otherwise the Draft is REJECTED. Of the rest,
 * only claims the judge calls SUPPORTED are published: each other analysis item, recommendation and action-plan step is
 * removed and listed first in `limitations.missing_info` by its place in the Draft (never its text), with its verdict
 * and the judge's reason (bounded to the Draft's own limits). NOTE: advice is a claim too (it may restate a finding the judge removed): it is published only
 * as the judge supports it.
 */
export function applyVerdicts(draft: DiagnosisDraft, verdicts: JudgeVerdicts): SemanticDecision {
  const verdictOf = (list: readonly IndexedVerdict[], index: number): Verdict => list[index]?.verdict ?? 'UNCLEAR';
  if (draft.conclusion !== null) {
    const findingsHold = draft.analysis.every(
      (item, index) =>
        !(item.type === 'FINDING' && item.evidence_status === 'SUPPORTED') ||
        verdictOf(verdicts.analysis, index) === 'SUPPORTED',
    );
    if (verdicts.conclusion?.verdict !== 'SUPPORTED' || !findingsHold) return { kind: 'REJECTED' };
  }
  const unsupported = (list: readonly IndexedVerdict[], count: number) =>
    Array.from({ length: count }, (_item, index) => index).filter((index) => verdictOf(list, index) !== 'SUPPORTED');
  const removed = unsupported(verdicts.analysis, draft.analysis.length);
  const removedRecommendations = unsupported(verdicts.recommendations, draft.recommendations.length);
  const removedActionPlan = unsupported(verdicts.action_plan, draft.action_plan.length);
  const kept = { removed, removedRecommendations, removedActionPlan };
  if (removed.length + removedRecommendations.length + removedActionPlan.length === 0) {
    return { kind: 'ACCEPTED', draft, ...kept };
  }
  const line = (list: readonly IndexedVerdict[], index: number, name: string) =>
    removedLine(name, verdictOf(list, index), list[index]?.reason ?? '');
  const lines = [
    ...removed.map((index) =>
      line(verdicts.analysis, index, removedClaimName('analysis', index, draft.analysis[index]?.type)),
    ),
    ...removedRecommendations.map((index) =>
      line(verdicts.recommendations, index, removedClaimName('recommendations', index)),
    ),
    ...removedActionPlan.map((index) => line(verdicts.action_plan, index, removedClaimName('action_plan', index))),
  ];
  const combined = [...lines, ...draft.limitations.missing_info];
  const missing =
    combined.length <= MAX_LIMITATION_LINES
      ? combined
      : [
          ...combined.slice(0, MAX_LIMITATION_LINES - 1),
          `另有 ${combined.length - MAX_LIMITATION_LINES + 1} 条限制未列出，见本次运行的审计记录（草稿与 semantic_guard）。`,
        ];
  return {
    kind: 'ACCEPTED',
    ...kept,
    draft: {
      ...draft,
      analysis: draft.analysis.filter((_item, index) => !removed.includes(index)),
      recommendations: draft.recommendations.filter((_item, index) => !removedRecommendations.includes(index)),
      action_plan: draft.action_plan.filter((_item, index) => !removedActionPlan.includes(index)),
      limitations: { ...draft.limitations, missing_info: missing },
    },
  };
}

/** The limitation line of a removed claim: its name ({@link removedClaimName}), the verdict and the judge's reason. */
function removedLine(name: string, verdict: Verdict, reason: string): string {
  const label = verdict === 'UNSUPPORTED' ? '证据不支持' : '证据不足以判断';
  return truncateChars(`语义校验（${label}）已移除${name}——${reason}`, MAX_LIMITATION_CHARS);
}

/**
 * The SemanticGuard's part of a report, in wire names: its mode, the judge's model id, its verdicts with the judge's
 * one-line reasons (the judge's own words, bounded), or the reason it failed; and which analysis items were removed.
 */
export interface SemanticGuardReport {
  mode: 'enforce' | 'shadow';
  model_id: string;
  outcome: 'JUDGED' | 'FAILED';
  failure: JudgeFailure | null;
  /** For a MODEL_FAILED judge call: how its request failed (absent otherwise). */
  model_failure?: ModelFailureReport;
  conclusion: { verdict: Verdict; reason: string } | null;
  analysis: IndexedVerdict[];
  recommendations: IndexedVerdict[];
  action_plan: IndexedVerdict[];
  /** Indexes (in the Draft) of the analysis items removed from the published result; always empty in shadow mode. */
  removed: number[];
  /** Indexes (in the Draft) of the recommendations removed; always empty in shadow mode. */
  removed_recommendations: number[];
  /** Indexes (in the Draft) of the action-plan steps removed; always empty in shadow mode. */
  removed_action_plan: number[];
}

/** What an enforcing SemanticGuard removed of a Draft (`applyVerdicts`), by index; nothing when absent. */
export interface SemanticRemovals {
  removed: number[];
  removedRecommendations: number[];
  removedActionPlan: number[];
}

export function semanticGuardReport(review: SemanticReview, removals?: SemanticRemovals): SemanticGuardReport {
  return {
    mode: review.mode,
    model_id: review.modelId,
    outcome: review.outcome,
    failure: review.outcome === 'FAILED' ? review.failure : null,
    ...(review.outcome === 'FAILED' && review.modelFailure !== undefined
      ? { model_failure: modelFailureReport(review.modelFailure) }
      : {}),
    conclusion: review.outcome === 'JUDGED' ? review.verdicts.conclusion : null,
    analysis: review.outcome === 'JUDGED' ? review.verdicts.analysis : [],
    recommendations: review.outcome === 'JUDGED' ? review.verdicts.recommendations : [],
    action_plan: review.outcome === 'JUDGED' ? review.verdicts.action_plan : [],
    removed: removals?.removed ?? [],
    removed_recommendations: removals?.removedRecommendations ?? [],
    removed_action_plan: removals?.removedActionPlan ?? [],
  };
}
