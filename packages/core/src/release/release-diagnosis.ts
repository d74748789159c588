import type { DiagnosisExecution } from '../agent/run-diagnosis.ts';
import { DiagnosisAgentOutputError, DiagnosisExecutionError, DiagnosisInputError } from '../errors.ts';
import type { ProgressSnapshot } from '../run/progress.ts';
import { emptyRunUsage, type RunUsage } from '../run/run-context.ts';
import type { StopReason } from '../run/stop-reason.ts';
import type { PublishedResult, RunOutcome } from '../store/run-store.ts';
import { verifyDraftEvidence } from './evidence-guard.ts';

export type ReleaseStatus = 'PUBLISHED' | 'FALLBACK' | 'FAILED' | 'CANCELLED';

/** What a caller receives for a published diagnosis: the Draft and the checks it cites. */
export interface PublishedReport extends PublishedResult {
  kind: 'DIAGNOSIS';
}

/** The fixed Chinese report of a run that produced nothing publishable. */
export interface FallbackReport {
  kind: 'FALLBACK';
  title: string;
  message: string;
  stop_reason: StopReason | null;
  reason: string;
  limitations: { checked_scope: string[]; missing_info: string[] };
}

export interface FailedReport {
  kind: 'FAILED';
  message: string;
  error_code: string;
}

/** A run someone stopped: nothing is published; what it checked stays in the audit trail and its progress. */
export interface CancelledReport {
  kind: 'CANCELLED';
  message: string;
  stop_reason: 'CANCELLED';
}

export type DiagnosisReport = PublishedReport | FallbackReport | FailedReport | CancelledReport;

/** The public result of one diagnosis run (the Lambda's answer). */
export interface DiagnosisResult {
  runId: string;
  status: ReleaseStatus;
  report: DiagnosisReport;
  stopReason: StopReason | null;
  progress: ProgressSnapshot | null;
  usage: RunUsage;
}

export interface ReleaseDecision {
  status: ReleaseStatus;
  report: DiagnosisReport;
  outcome: RunOutcome;
}

const REASON_TEXT: Record<StopReason, string> = {
  INFORMATION_SATURATED: '连续的查询没有带来新的诊断信息，证据收集已停止。',
  TOOL_CALL_BUDGET: '本次运行的证据查询次数已用完。',
  MODEL_CALL_BUDGET: '本次运行的模型调用次数已用完。',
  TOKEN_BUDGET: '本次运行的 Token 预算已用完。',
  DEADLINE: '本次运行已到达时间上限。',
  CANCELLED: '本次运行被取消。',
  STOP_IGNORED: '诊断助手在要求停止后仍试图继续查询，结果不予采用。',
};

const GUARD_TEXT: Record<string, string> = {
  GUARD_UNKNOWN_CITATION: '诊断草稿引用了本次运行中不存在或未成功的查询。',
  GUARD_SUPPORTED_WITHOUT_EVIDENCE: '诊断草稿中有结论性条目没有非空证据支撑。',
  GUARD_NO_EVIDENCE_NOT_EMPTY: '诊断草稿把有数据的查询标记为无证据。',
  GUARD_CONCLUSION_UNSUPPORTED: '诊断草稿给出了结论，但没有经过校验的发现支撑。',
  DRAFT_BLANK: '诊断助手没有输出诊断草稿。',
  DRAFT_NOT_JSON: '诊断助手的输出不是合法的诊断草稿 JSON。',
  DRAFT_SCHEMA: '诊断助手的输出不符合诊断草稿的格式要求。',
  DRAFT_TOO_LARGE: '诊断助手的输出超过了大小限制。',
};

/**
 * The release policy: what of a run is published. A Draft that passes the EvidenceGuard is PUBLISHED (run
 * SUCCEEDED). A guard failure, a controlled stop without a Draft, or an invalid Draft is a FALLBACK: a fixed Chinese
 * report with the stop reason and limitations derived only from the run's own progress (never model text). Any other
 * failure is FAILED, with no published result. Input errors are the caller's and never reach here.
 */
export function releaseDiagnosis(input: {
  execution?: DiagnosisExecution;
  error?: unknown;
  usage: RunUsage;
}): ReleaseDecision {
  const { execution, error, usage } = input;
  if (execution !== undefined) {
    const { draft, progress, stopReason } = execution;
    if (stopReason === 'CANCELLED' && draft === null) return cancelled(usage, progress);
    if (draft === null) return fallback(usage, progress, stopReason, null, null);
    const guard = verifyDraftEvidence(draft, progress);
    if (!guard.ok) return fallback(usage, progress, stopReason, guard.code, draft);
    const publishedResult: PublishedResult = { draft, citations: guard.citations };
    const report: PublishedReport = { kind: 'DIAGNOSIS', ...publishedResult };
    return {
      status: 'PUBLISHED',
      report,
      outcome: { status: 'SUCCEEDED', stopReason, errorCode: null, usage, progress, draft, publishedResult, report },
    };
  }
  if (error instanceof DiagnosisAgentOutputError) return fallback(usage, error.progress, null, error.code, null);
  const code =
    error instanceof DiagnosisExecutionError || error instanceof DiagnosisInputError ? error.code : 'INTERNAL';
  return failed(usage, code);
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

/** A FAILED decision for failures outside the agent (the audit flush, the store). */
export function failed(usage: RunUsage, errorCode: string, progress: ProgressSnapshot | null = null): ReleaseDecision {
  const report: FailedReport = {
    kind: 'FAILED',
    message: '诊断失败，没有可发布的结果。请稍后重试或联系值班人员。',
    error_code: errorCode,
  };
  return {
    status: 'FAILED',
    report,
    outcome: {
      status: 'FAILED',
      stopReason: null,
      errorCode,
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
    message: '本次诊断没有产生经过证据校验的结论。以下是本次运行实际检查的范围，请据此人工排查，或补充信息后重新诊断。',
    stop_reason: stopReason,
    reason,
    limitations: {
      checked_scope: checks.map(
        (check) =>
          `${check.toolName}（${check.toolCallId}）：${check.status === 'READY' ? (check.empty ? '无匹配结果' : '有结果') : '查询失败'}`,
      ),
      missing_info:
        checks.length === 0
          ? ['本次运行没有完成任何证据查询；请确认企业、故障开始时间、受影响服务与错误现象后重试。']
          : ['证据不足以支撑可发布的诊断结论。'],
    },
  };
  return {
    status: 'FALLBACK',
    report,
    outcome: { status: 'FALLBACK', stopReason, errorCode, usage, progress, draft, publishedResult: null, report },
  };
}

/** The public result of a stored, finished run (a replayed invocation answers with exactly this). */
export function resultOfStoredRun(run: {
  runId: string;
  status: string;
  report: unknown;
  stopReason: StopReason | null;
  progress: ProgressSnapshot | null;
  usage: RunUsage | null;
}): DiagnosisResult {
  const status: ReleaseStatus =
    run.status === 'SUCCEEDED'
      ? 'PUBLISHED'
      : run.status === 'FALLBACK' || run.status === 'CANCELLED'
        ? run.status
        : 'FAILED';
  return {
    runId: run.runId,
    status,
    report: run.report as DiagnosisReport,
    stopReason: run.stopReason,
    progress: run.progress,
    usage: run.usage ?? emptyRunUsage(),
  };
}
