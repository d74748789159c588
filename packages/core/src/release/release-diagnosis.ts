/**
 * NOTE: the release is one decision (published, fallback, failed, cancelled) whose branches stay side by side in this
 * module; the shapes they answer live in diagnosis-result.ts, their fixed texts in release-texts.ts, and reading a
 * stored run back as a result in result-of-stored-run.ts.
 * NOTE: over 300 lines on purpose: one release decision and each outcome it can produce (published, fallback, failed,
 * cancelled).
 */
import type { DiagnosisExecution } from '../agent/run-diagnosis.ts';
import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import { DiagnosisAgentOutputError, DiagnosisExecutionError, DiagnosisInputError } from '../errors.ts';
import { type ModelFailure, modelFailureReport } from '../run/model-failure.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import type { RunUsage } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import type { PublishedResult, RunOutcome, VerifiedCitation } from '../store/run-store.ts';
import { type ChangeChecks, citedChangesOf } from './change-after-symptom.ts';
import type {
  CancelledReport,
  DiagnosisReport,
  FailedReport,
  FallbackReport,
  PublishedReport,
  ReleaseStatus,
  SeenBefore,
} from './diagnosis-result.ts';
import { citationsOf, type EvidenceGuardResult, verifyDraftEvidence } from './evidence-guard.ts';
import { FAILED_TEXT, FAILED_TEXT_DEFAULT, GUARD_TEXT, REASON_TEXT } from './release-texts.ts';
import { applyVerdicts, type SemanticGuardReport, type SemanticReview, semanticGuardReport } from './semantic-guard.ts';

/** What the release policy decided of a run: the caller's status and report, and the outcome the run item keeps. */
export interface ReleaseDecision {
  status: ReleaseStatus;
  report: DiagnosisReport;
  outcome: RunOutcome;
}

/**
 * The release policy: what of a run is published. A Draft that passes the EvidenceGuard is PUBLISHED (run
 * SUCCEEDED). A guard failure, a controlled stop without a Draft, or an invalid Draft after READY checks is a
 * FALLBACK: a fixed Chinese report with the stop reason and limitations derived only from the run's own progress
 * (never model text), each text chosen by the real cause. An invalid Draft without READY checks, and any other
 * failure, is FAILED, with no published result. Input errors are the caller's and never reach here.
 */
export function releaseDiagnosis(input: {
  execution?: DiagnosisExecution;
  error?: unknown;
  /**
   * The EvidenceGuard's result on `execution.draft` (`verifyExecutionEvidence`), as the service took it once for the
   * SemanticGuard and the release alike; absent: the release takes it (a release with no judge before it).
   */
  evidenceGuard?: EvidenceGuardResult | null;
  usage: RunUsage;
  /** The SemanticGuard's review of the Draft (see `reviewDraftSemantics`); absent or null: it was off or not needed. */
  semantic?: SemanticReview | null;
  /** The past runs the agent looked at (past incidents its lookups returned): shown apart from the evidence. */
  seenBefore?: readonly SeenBefore[];
  /** The run's change-stream checks and their changes: the published items' named changes are shown with links. */
  changeChecks?: ChangeChecks;
}): ReleaseDecision {
  const decision = decideRelease(input);
  // NOTE: passed through untouched, so the run item and the result keep why collection stopped, also when the final
  // round's output was invalid.
  const collectionStopReason =
    input.execution?.collectionStopReason ??
    (input.error instanceof DiagnosisAgentOutputError ? (input.error.collectionStopReason ?? undefined) : undefined);
  return collectionStopReason === undefined
    ? decision
    : { ...decision, outcome: { ...decision.outcome, collectionStopReason } };
}

function decideRelease(input: {
  execution?: DiagnosisExecution | undefined;
  evidenceGuard?: EvidenceGuardResult | null | undefined;
  error?: unknown;
  usage: RunUsage;
  semantic?: SemanticReview | null | undefined;
  seenBefore?: readonly SeenBefore[] | undefined;
  changeChecks?: ChangeChecks | undefined;
}): ReleaseDecision {
  const { execution, error, usage } = input;
  const changeChecks = input.changeChecks ?? new Map();
  const semantic = input.semantic ?? null;
  if (execution !== undefined) {
    const { draft, progress, stopReason } = execution;
    if (stopReason === 'CANCELLED' && draft === null) return cancelled(usage, progress);
    if (draft === null) return fallback(usage, progress, stopReason, null, null);
    const guard = input.evidenceGuard ?? verifyDraftEvidence(draft, progress);
    const removedByGuard = guard.removed === undefined ? {} : { evidence_guard: { removed: guard.removed } };
    if (!guard.ok) return fallback(usage, progress, stopReason, guard.code, draft, undefined, removedByGuard);
    // NOTE: the Draft without the items the EvidenceGuard removed (past incidents alone) is what is judged and published.
    const checked = guard.draft ?? draft;
    const withGuard = { ...removedByGuard, ...seenBeforeOf(input.seenBefore) };
    if (semantic === null) {
      return published(
        usage,
        execution,
        checked,
        guard.citations,
        undefined,
        withChanges(withGuard, checked, changeChecks),
      );
    }
    // NOTE: an unaudited judge call fails the run in every mode: the audit's completeness is not the guard's to waive.
    if (semantic.outcome === 'FAILED' && semantic.failure === 'AUDIT_FAILED') return failed(usage, 'AUDIT_FAILED');
    if (semantic.mode === 'shadow') {
      const extra = withChanges(withGuard, checked, changeChecks);
      return published(usage, execution, checked, guard.citations, semanticGuardReport(semantic), extra);
    }
    if (semantic.outcome === 'FAILED') {
      if (semantic.failure === 'CANCELLED') return cancelled(usage, progress);
      const report = semanticGuardReport(semantic);
      return fallback(usage, progress, stopReason, 'SEMANTIC_GUARD_FAILED', draft, report, removedByGuard);
    }
    const decision = applyVerdicts(checked, semantic.verdicts);
    if (decision.kind === 'REJECTED') {
      const report = semanticGuardReport(semantic);
      return fallback(usage, progress, stopReason, 'SEMANTIC_GUARD_REJECTED', draft, report, removedByGuard);
    }
    // NOTE: the trimmed Draft is not checked again: its citations are taken from the verified snapshot (`citationsOf`).
    const citations = citationsOf(decision.draft, guard.citations);
    const report = semanticGuardReport(semantic, decision);
    return published(
      usage,
      execution,
      decision.draft,
      citations,
      report,
      withChanges(withGuard, decision.draft, changeChecks),
    );
  }
  if (error instanceof DiagnosisAgentOutputError) {
    // NOTE: an invalid final Draft without verified checks stays FAILED (nothing to show, and nothing may be made up:
    // no missing context, no no-conclusion Draft); with READY checks, their scope is worth a FALLBACK.
    return error.progress === null
      ? failed(usage, error.code)
      : fallback(usage, error.progress, null, error.code, null);
  }
  if (error instanceof DiagnosisExecutionError) return failed(usage, error.code, null, error.modelFailure);
  return failed(usage, error instanceof DiagnosisInputError ? error.code : 'INTERNAL');
}

/**
 * A PUBLISHED decision: `draft` (after the SemanticGuard's removals, if any) with its verified citations. The
 * outcome keeps the agent's full Draft for the audit; the published result holds what was released.
 */
function published(
  usage: RunUsage,
  execution: DiagnosisExecution,
  draft: DiagnosisDraft,
  citations: VerifiedCitation[],
  semanticGuard?: SemanticGuardReport,
  extra: Pick<PublishedReport, 'evidence_guard' | 'seen_before' | 'changes'> = {},
): ReleaseDecision {
  const publishedResult: PublishedResult = { draft, citations };
  const report: PublishedReport = {
    kind: 'DIAGNOSIS',
    ...publishedResult,
    ...(semanticGuard === undefined ? {} : { semantic_guard: semanticGuard }),
    ...extra,
  };
  const { progress, stopReason } = execution;
  return {
    status: 'PUBLISHED',
    report,
    outcome: {
      status: 'SUCCEEDED',
      stopReason,
      errorCode: null,
      usage,
      progress,
      draft: execution.draft,
      publishedResult,
      report,
    },
  };
}

/** The report's extras with its `changes`: the changes the published Draft's items name, present only when some. */
function withChanges(
  extra: Pick<PublishedReport, 'evidence_guard' | 'seen_before'>,
  draft: DiagnosisDraft,
  changeChecks: ChangeChecks,
): Pick<PublishedReport, 'evidence_guard' | 'seen_before' | 'changes'> {
  const changes = citedChangesOf(draft.analysis, changeChecks);
  return changes.length === 0 ? extra : { ...extra, changes };
}

/** The report's `seen_before`, present only when the agent's lookups returned past incidents. */
function seenBeforeOf(seenBefore: readonly SeenBefore[] | undefined): Pick<PublishedReport, 'seen_before'> {
  return seenBefore === undefined || seenBefore.length === 0 ? {} : { seen_before: [...seenBefore] };
}

/** A CANCELLED decision: the run was stopped on request (its progress so far is kept). */
export function cancelled(usage: RunUsage, progress: ProgressSnapshot | null = null): ReleaseDecision {
  const report: CancelledReport = {
    kind: 'CANCELLED',
    message: '诊断已按请求取消，没有发布结论。已完成的检查保留在本次运行的审计记录中。',
    stop_reason: 'CANCELLED',
  };
  return {
    status: 'CANCELLED',
    report,
    outcome: {
      status: 'CANCELLED',
      stopReason: 'CANCELLED',
      errorCode: null,
      usage,
      progress,
      draft: null,
      publishedResult: null,
      report,
    },
  };
}

/**
 * A FAILED decision: also for failures outside the agent (the audit flush, the store). `modelFailure`, when the model
 * endpoint failed, goes into the report and the run's outcome.
 */
export function failed(
  usage: RunUsage,
  errorCode: string,
  progress: ProgressSnapshot | null = null,
  modelFailure: ModelFailure | null = null,
): ReleaseDecision {
  const report: FailedReport = {
    kind: 'FAILED',
    message: FAILED_TEXT[errorCode] ?? FAILED_TEXT_DEFAULT,
    error_code: errorCode,
    ...(modelFailure === null ? {} : { model_failure: modelFailureReport(modelFailure) }),
  };
  return {
    status: 'FAILED',
    report,
    outcome: {
      status: 'FAILED',
      stopReason: null,
      errorCode,
      modelFailure,
      usage,
      progress,
      draft: null,
      publishedResult: null,
      report,
    },
  };
}

function fallback(
  usage: RunUsage,
  progress: ProgressSnapshot | null,
  stopReason: StopReason | null,
  errorCode: string | null,
  draft: RunOutcome['draft'],
  semanticGuard?: SemanticGuardReport,
  extra: Pick<FallbackReport, 'evidence_guard'> = {},
): ReleaseDecision {
  const checks = progress?.checks ?? [];
  const reason =
    errorCode !== null
      ? (GUARD_TEXT[errorCode] ?? '诊断草稿未通过校验。')
      : stopReason !== null
        ? REASON_TEXT[stopReason]
        : '本次运行没有产生诊断草稿。';
  const report: FallbackReport = {
    kind: 'FALLBACK',
    title: '未能生成可发布的诊断',
    message: `${fallbackCause(stopReason, errorCode)}以下是本次运行实际检查的范围，请据此人工排查，或补充信息后重新诊断。`,
    stop_reason: stopReason,
    ...(errorCode === null ? {} : { error_code: errorCode }),
    reason,
    limitations: {
      checked_scope: checks.map(
        (check) =>
          `${check.toolName}（${check.toolCallId}）：${check.status === 'READY' ? (check.empty ? '无匹配结果' : '有结果') : '查询失败'}`,
      ),
      missing_info: [missingInfo(checks.length, stopReason, errorCode, draft)],
    },
    ...(semanticGuard === undefined ? {} : { semantic_guard: semanticGuard }),
    ...extra,
  };
  return {
    status: 'FALLBACK',
    report,
    outcome: { status: 'FALLBACK', stopReason, errorCode, usage, progress, draft, publishedResult: null, report },
  };
}

/**
 * The one limitation a FALLBACK states, chosen by the real cause. NOTE: "missing context" (enterprise, time, service,
 * symptom) is said only when the model's own Draft said information was missing; a run stopped by its deadline, its
 * budget or a cancellation before any check is never blamed on the question.
 */
function missingInfo(
  checkCount: number,
  stopReason: StopReason | null,
  errorCode: string | null,
  draft: RunOutcome['draft'],
): string {
  if (errorCode === 'SEMANTIC_GUARD_REJECTED') {
    return '所引用的证据不足以支撑诊断结论（独立语义校验的判断见 semantic_guard）；可据已检查的范围人工核实。';
  }
  if (errorCode === 'SEMANTIC_GUARD_FAILED') {
    return '诊断草稿未能经过语义校验，无法确认其内容得到证据支持；可据已检查的范围人工核实，或稍后重新诊断。';
  }
  if (checkCount > 0) {
    if (errorCode?.startsWith('GUARD_'))
      return '诊断草稿的引用未通过证据校验（见 reason），已完成的查询没有形成可发布的结论。';
    if (errorCode !== null) return '诊断助手的最终输出无效，已完成的查询没有形成可发布的结论。';
    if (stopReason !== null) return '本次运行在写出可校验的诊断草稿之前停止（原因见 reason），已完成的查询见上。';
    return '证据不足以支撑可发布的诊断结论。';
  }
  if (draft !== null && draft.conclusion === null && draft.limitations.missing_info.length > 0) {
    return '诊断草稿称缺少必要的上下文（如企业、故障开始时间、受影响服务或错误现象），且没有完成任何证据查询；请补充后重新诊断。';
  }
  if (stopReason !== null) return '本次运行在完成任何证据查询之前就已停止（原因见 reason）；处理该原因后重新诊断。';
  return '本次运行没有完成任何经过校验的证据查询。';
}

/**
 * The first sentence of a FALLBACK message: which of the three causes kept the run from a verified conclusion (the
 * Draft failed the evidence check, the final output was invalid, or the run was stopped), fixed per cause.
 */
function fallbackCause(stopReason: StopReason | null, errorCode: string | null): string {
  if (errorCode === 'SEMANTIC_GUARD_REJECTED') {
    return '独立的语义校验认为诊断结论没有得到所引用证据的支持，草稿内容不予发布。';
  }
  if (errorCode === 'SEMANTIC_GUARD_FAILED') {
    return '语义校验没有完成，按失败即关闭的原则，未经校验的草稿内容不予发布。';
  }
  if (errorCode?.startsWith('GUARD_')) return '诊断草稿未通过证据校验，草稿内容不予发布。';
  if (errorCode !== null) return '诊断助手的最终输出不是有效的诊断草稿，不予发布。';
  if (stopReason !== null) return '本次运行在得出经过证据校验的结论之前停止（原因见 reason）。';
  return '本次诊断没有产生经过证据校验的结论。';
}
