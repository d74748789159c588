import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DiagnosisResult } from '@diagnosis/core';
import { METRICS_NAMESPACE, OUTCOME_DIMENSION, RUN_METRICS, SERVICE_NAME } from './metric-names.ts';

/**
 * The function's structured logger and EMF metrics (Powertools), made once per cold start. Log lines carry ids,
 * statuses, codes and counters only; the run id is a persistent key while a run is handled, never a metric dimension.
 */
export function createObservability(functionName: string) {
  const logger = new Logger({ serviceName: SERVICE_NAME, persistentKeys: { function: functionName } });
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger });
  return { logger, metrics };
}

export type Observability = ReturnType<typeof createObservability>;

/**
 * The metrics of one finished run, emitted once per run: its outcome as the only dimension besides the service (four
 * values, `RUN_OUTCOMES`), counters of model calls, tool calls by status, tokens and duration; the stop reason and error code as EMF
 * metadata (searchable in the log, never a dimension: their combinations would multiply the metric count).
 */
export function recordRunMetrics(metrics: Metrics, result: DiagnosisResult, durationMs: number): void {
  const checks = result.progress?.checks ?? [];
  const errorCode = (result.report as { error_code?: unknown } | null)?.error_code;
  metrics.addDimension(OUTCOME_DIMENSION, result.status);
  metrics.addMetric(RUN_METRICS.runs, MetricUnit.Count, 1);
  metrics.addMetric(RUN_METRICS.modelCalls, MetricUnit.Count, result.usage.modelCalls);
  metrics.addMetric(RUN_METRICS.toolCalls, MetricUnit.Count, result.usage.toolCalls);
  metrics.addMetric(
    RUN_METRICS.toolCallsReady,
    MetricUnit.Count,
    checks.filter((check) => check.status === 'READY').length,
  );
  metrics.addMetric(
    RUN_METRICS.toolCallsError,
    MetricUnit.Count,
    checks.filter((check) => check.status === 'ERROR').length,
  );
  metrics.addMetric(RUN_METRICS.toolCallsRejected, MetricUnit.Count, result.progress?.rejectedToolCalls ?? 0);
  metrics.addMetric(RUN_METRICS.inputTokens, MetricUnit.Count, result.usage.inputTokens);
  metrics.addMetric(RUN_METRICS.outputTokens, MetricUnit.Count, result.usage.outputTokens);
  metrics.addMetric(RUN_METRICS.cachedInputTokens, MetricUnit.Count, result.usage.cachedInputTokens);
  metrics.addMetric(RUN_METRICS.runDuration, MetricUnit.Milliseconds, durationMs);
  metrics.addMetadata('stopReason', result.stopReason ?? 'NONE');
  metrics.addMetadata('errorCode', typeof errorCode === 'string' ? errorCode : 'NONE');
}
