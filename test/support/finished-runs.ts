/**
 * Ended runs as the real (in-memory) run store keeps them, one per terminal outcome, for the delivery's tests. The
 * Drafts and reports are scripted; the run items are the store's own (queueRun → claimQueuedRun → completeRun).
 */
import {
  cancelled,
  type DiagnosisDraft,
  emptyRunUsage,
  type FailedReport,
  type FallbackReport,
  type RunOutcome,
  type RunUsage,
  type StoredRun,
} from '@diagnosis/core';
import { createMemoryRunStore, type EndedRunStatus, isEnded } from '@diagnosis/core/store';
import { supportedDraft, T0 } from './run-fixtures.ts';

export const USAGE: RunUsage = {
  ...emptyRunUsage(),
  modelCalls: 4,
  inputTokens: 20_000,
  cachedInputTokens: 12_000,
  outputTokens: 1_500,
  totalTokens: 21_500,
  toolCalls: 3,
};

export type FinishedKind = 'PUBLISHED' | 'FALLBACK' | 'FAILED' | 'CANCELLED';

export interface FinishedRunOptions {
  runId?: string;
  sessionId?: string;
  enterpriseId?: string;
  query?: string;
  draft?: DiagnosisDraft;
}

/** The outcome `completeRun` is given for each kind, as the release writes it. */
export function outcomeOf(kind: FinishedKind, draft: DiagnosisDraft = supportedDraft(['call_logs_1'])): RunOutcome {
  const base = { collectionStopReason: null, modelFailure: null, usage: USAGE, progress: null, limits: null };
  if (kind === 'PUBLISHED') {
    const citations = [...new Set(draft.analysis.flatMap((item) => item.tool_call_ids))].map((id, index) => ({
      tool_call_id: id,
      tool_name: index % 2 === 0 ? ('query_logs' as const) : ('query_mysql' as const),
      empty: index % 3 === 2,
    }));
    const publishedResult = { draft, citations };
    return {
      ...base,
      status: 'SUCCEEDED',
      stopReason: null,
      errorCode: null,
      draft,
      publishedResult,
      report: { kind: 'DIAGNOSIS', ...publishedResult },
    };
  }
  if (kind === 'FALLBACK') {
    const report: FallbackReport = {
      kind: 'FALLBACK',
      title: '未能得出经过校验的结论',
      message: '本次运行的证据查询次数已用完。以下是本次运行实际检查的范围，请据此人工排查，或补充信息后重新诊断。',
      stop_reason: 'TOOL_CALL_BUDGET',
      reason: '本次运行的证据查询次数已用完。',
      limitations: { checked_scope: ['query_logs order-service 14:00–15:00'], missing_info: ['支付网关的变更记录'] },
    };
    // NOTE: the model's unpublished Draft is kept on the run for the audit; the event must never show it.
    return {
      ...base,
      status: 'FALLBACK',
      stopReason: 'TOOL_CALL_BUDGET',
      errorCode: 'GUARD_UNKNOWN_CITATION',
      draft,
      publishedResult: null,
      report,
    };
  }
  if (kind === 'FAILED') {
    const report: FailedReport = {
      kind: 'FAILED',
      message: '模型服务调用失败，没有可发布的结果。',
      error_code: 'MODEL_FAILED',
    };
    return {
      ...base,
      status: 'FAILED',
      stopReason: null,
      errorCode: 'MODEL_FAILED',
      draft: null,
      publishedResult: null,
      report,
    };
  }
  return { ...cancelled(USAGE).outcome, ...base };
}

/** One ended run of `kind`, stored and read back by the in-memory run store. */
export type EndedRun = StoredRun & { status: EndedRunStatus };

export async function finishedRun(kind: FinishedKind, options: FinishedRunOptions = {}): Promise<EndedRun> {
  let now = T0;
  const store = createMemoryRunStore({ now: () => now });
  const runId = options.runId ?? `run-${kind.toLowerCase()}`;
  await store.queueRun({
    runId,
    sessionId: options.sessionId ?? 'session-1',
    enterpriseId: options.enterpriseId ?? 'E1001',
    query: options.query ?? '订单服务 14:05 开始下单失败，帮我看看原因',
    continueSession: false,
  });
  now += 1_000;
  await store.claimQueuedRun(runId, now + 60_000);
  now += 30_000;
  await store.completeRun(runId, outcomeOf(kind, options.draft));
  const run = await store.getRun(runId);
  if (run === null || !isEnded(run.status)) throw new Error('the run was not stored as ended');
  return { ...run, status: run.status };
}
