import { Logger, type LogItem } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { DiagnosisResult, ProcessScorecard } from '@diagnosis/core';
import { METRICS_NAMESPACE, OUTCOME_DIMENSION, PROCESS_METRICS, RUN_METRICS, SERVICE_NAME } from './metric-names.ts';

/** Where log lines and EMF records go instead of stdout: one JSON text per call, without a line break. */
export type LogDestination = (line: string) => void;

/**
 * The function's structured logger and EMF metrics (Powertools), made once per cold start. Log lines carry ids,
 * statuses, codes and counters only; the run id is a persistent key while a run is handled, never a metric dimension.
 * In Lambda both write to stdout (CloudWatch). `destination` sends every line elsewhere instead (the command line
 * keeps stdout for the answer): Powertools 2 has no output-stream option, so two small subclasses override its
 * documented extension points (`printLog`, `publishStoredMetrics`); the lines themselves are unchanged.
 */
export function createObservability(functionName: string, destination?: LogDestination) {
  const options = { serviceName: SERVICE_NAME, persistentKeys: { function: functionName } };
  const logger = destination === undefined ? new Logger(options) : new DestinationLogger(options, destination);
  const metricsOptions = { namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, logger };
  const metrics =
    destination === undefined ? new Metrics(metricsOptions) : new DestinationMetrics(metricsOptions, destination);
  return { logger, metrics };
}

export interface Observability {
  logger: Logger;
  metrics: Metrics;
}

class DestinationLogger extends Logger {
  readonly #destination: LogDestination;

  constructor(options: ConstructorParameters<typeof Logger>[0], destination: LogDestination) {
    super(options);
    this.#destination = destination;
  }

  protected override printLog(_logLevel: number, log: LogItem): void {
    log.prepareForPrint();
    this.#destination(JSON.stringify(log.getAttributes(), this.getJsonReplacer()));
  }
}

class DestinationMetrics extends Metrics {
  readonly #destination: LogDestination;

  constructor(options: ConstructorParameters<typeof Metrics>[0], destination: LogDestination) {
    super(options);
    this.#destination = destination;
  }

  override publishStoredMetrics(): this {
    try {
      if (this.hasStoredMetrics()) this.#destination(JSON.stringify(this.serializeMetrics()));
    } finally {
      this.clearMetrics();
      this.clearDimensions();
      this.clearMetadata();
    }
    return this;
  }
}

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

/**
 * The process metrics of one finished run, from the scorecard stored on its item, in the same EMF record as
 * `recordRunMetrics` (so under its outcome dimension): redundant, unproductive and NO_GAIN calls, whether it answered
 * without tools, the Draft items the guards removed, and time in model and tools.
 */
export function recordProcessMetrics(metrics: Metrics, scorecard: ProcessScorecard): void {
  metrics.addMetric(PROCESS_METRICS.redundantToolCalls, MetricUnit.Count, scorecard.toolCalls.redundant);
  metrics.addMetric(PROCESS_METRICS.unproductiveToolCalls, MetricUnit.Count, scorecard.toolCalls.unproductive);
  metrics.addMetric(PROCESS_METRICS.noGainToolCalls, MetricUnit.Count, scorecard.toolCalls.noGain);
  metrics.addMetric(PROCESS_METRICS.answeredWithoutTools, MetricUnit.Count, scorecard.answeredWithoutTools ? 1 : 0);
  metrics.addMetric(PROCESS_METRICS.guardRemovedItems, MetricUnit.Count, scorecard.guards.removedItems ?? 0);
  metrics.addMetric(PROCESS_METRICS.modelTime, MetricUnit.Milliseconds, scorecard.timeMs.model);
  metrics.addMetric(PROCESS_METRICS.toolTime, MetricUnit.Milliseconds, scorecard.timeMs.tools);
}
