/**
 * The metric queries the alarms and the dashboard share, over the monitored resources' deployed names. `V` is how a
 * deployed name is held: a string in tests, a Pulumi output in the SST config.
 */
import {
  METRICS_NAMESPACE,
  OUTCOME_DIMENSION,
  RUN_METRICS,
  RUN_OUTCOMES,
  SERVICE_DIMENSION,
  SERVICE_NAME,
  TRIGGER_METRICS,
} from '@diagnosis/functions/infrastructure';

/** What is watched, by the names AWS gives it at deploy time. */
export interface MonitoredResources<V> {
  region: V;
  /** Every function of the stage: its logical name (as in `sst.config.ts`) and its deployed name. */
  functions: readonly { id: string; name: V }[];
  /** The logical name of the function that runs a diagnosis (its errors and p95 duration have their own alarms). */
  runFunctionId: string;
  tableName: V;
  globalIndexNames: readonly string[];
  stateMachines: readonly { id: string; arn: V }[];
  apiId: V;
  /** The IngressApi (the routes senders outside AWS call); absent: no ingress graph. */
  ingressApiId?: V;
  topicArn: V;
  /** Whether the stage deploys triggers (its stage file maps some): their failures get an alarm and a graph. */
  triggers?: boolean;
  /** The queue Trigger's failed events end in (only with CloudWatch triggers): its depth gets an alarm. */
  triggerDeadLetters?: { queueName: V };
  /** The delivery's queues (issue #21), by their deployed names; absent: no delivery alarms. */
  delivery?: { queueName: V; deadLetterQueueName: V };
}

/** One query of an alarm or graph: a metric with its statistic, or an expression over other queries' ids. */
export type MetricQuery<V> =
  | {
      id: string;
      returnData: boolean;
      label?: string;
      metric: {
        namespace: string;
        metricName: string;
        dimensions: Record<string, V | string>;
        period: number;
        stat: string;
      };
    }
  | { id: string; returnData: boolean; label: string; expression: string };

const serviceDimensions = (outcome: string): Record<string, string> => ({
  [SERVICE_DIMENSION]: SERVICE_NAME,
  [OUTCOME_DIMENSION]: outcome,
});

/** A metric query id: CloudWatch wants `^[a-z][a-zA-Z0-9_]*$`. */
export const queryId = (...parts: string[]) =>
  parts
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_');

/** One query per run outcome of a run metric (hidden), for expressions over all runs. */
export function runMetricPerOutcome<V>(metricName: string, stat: string, period: number): MetricQuery<V>[] {
  return RUN_OUTCOMES.map((outcome) => ({
    id: queryId(metricName, outcome),
    returnData: false,
    metric: {
      namespace: METRICS_NAMESPACE,
      metricName,
      dimensions: serviceDimensions(outcome),
      period,
      stat,
    },
  }));
}

export const sumOf = (queries: readonly { id: string }[]) => queries.map((query) => `FILL(${query.id}, 0)`).join(' + ');

/** The FAILED share of the runs that ended in a period, in percent; 0 while fewer than `minimumRuns` ended. */
export function failedRateQueries<V>(periodSeconds: number, minimumRuns: number): MetricQuery<V>[] {
  const perOutcome = runMetricPerOutcome<V>(RUN_METRICS.runs, 'Sum', periodSeconds);
  const failed = perOutcome[RUN_OUTCOMES.indexOf('FAILED')];
  if (failed === undefined) throw new Error('RUN_OUTCOMES has no FAILED');
  return [
    ...perOutcome,
    { id: 'runs_total', returnData: false, label: 'runs ended', expression: sumOf(perOutcome) },
    {
      id: 'failed_rate',
      returnData: true,
      label: 'FAILED runs (% of runs ended)',
      expression: `IF(runs_total >= ${minimumRuns}, 100 * FILL(${failed.id}, 0) / runs_total, 0)`,
    },
  ];
}

export const awsMetric = <V>(
  namespace: string,
  metricName: string,
  dimensions: Record<string, V | string>,
  period: number,
  stat: string,
  id = 'm',
  returnData = true,
): MetricQuery<V> => ({ id, returnData, metric: { namespace, metricName, dimensions, period, stat } });

/** A metric the functions emit with the service dimension only (the delivery's counters). */
export const serviceMetric = <V>(metricName: string, period: number, stat: string, id = 'm', returnData = true) =>
  awsMetric<V>(METRICS_NAMESPACE, metricName, { [SERVICE_DIMENSION]: SERVICE_NAME }, period, stat, id, returnData);

/** Throttled read and write events of the table and of each global index (hidden queries). */
export function tableThrottleQueries<V>(resources: MonitoredResources<V>, period: number): MetricQuery<V>[] {
  const targets: { id: string; dimensions: Record<string, V | string> }[] = [
    { id: 'table', dimensions: { TableName: resources.tableName } },
    ...resources.globalIndexNames.map((index) => ({
      id: index,
      dimensions: { TableName: resources.tableName, GlobalSecondaryIndexName: index },
    })),
  ];
  return targets.flatMap((target) =>
    (['ReadThrottleEvents', 'WriteThrottleEvents'] as const).map((metricName) =>
      awsMetric('AWS/DynamoDB', metricName, target.dimensions, period, 'Sum', queryId(target.id, metricName), false),
    ),
  );
}

/** Trigger events that could not be handled (a run that could not be started, a table that failed). */
export const triggerFailuresQuery = <V>(period: number): MetricQuery<V> =>
  awsMetric<V>(
    METRICS_NAMESPACE,
    TRIGGER_METRICS.failures,
    serviceDimensions('FAILED'),
    period,
    'Sum',
    'trigger_failures',
  );

/** Webhook requests refused (unsigned, badly signed, replayed, stale, oversized). */
export const webhookRefusalsQuery = <V>(period: number): MetricQuery<V> =>
  awsMetric<V>(
    METRICS_NAMESPACE,
    TRIGGER_METRICS.webhookRefused,
    { [SERVICE_DIMENSION]: SERVICE_NAME },
    period,
    'Sum',
    'webhook_refusals',
  );
