/**
 * The deployment's alarms and dashboard as data: a pure function of the monitored resources' names and the stage's
 * alarm settings, so the tests read exactly what `sst.config.ts` creates (one `aws.cloudwatch.MetricAlarm` per
 * definition, one `aws.cloudwatch.Dashboard` with this body). `V` is how a deployed name is held: a string in tests,
 * a Pulumi output in the SST config.
 */
import * as v from 'valibot';
import {
  METRICS_NAMESPACE,
  OUTCOME_DIMENSION,
  RUN_METRICS,
  RUN_OUTCOMES,
  SERVICE_DIMENSION,
  SERVICE_NAME,
} from '../functions/setup/metric-names.ts';

const count = (minimum: number) => v.pipe(v.number(), v.safeInteger(), v.minValue(minimum));

/**
 * The thresholds, each a setting of the stage file's `alarms` object. The defaults and why:
 * - `periodSeconds` 300: CloudWatch's standard period for Lambda, DynamoDB and Step Functions metrics; an alarm
 *   fires within about five minutes of the first bad datapoint.
 * - `failedRatePercent` 25 over `failedRatePeriodSeconds` 900 with at least `failedRateMinimumRuns` 4 runs: FAILED
 *   means nothing was published (model endpoint down, audit writes failing, a crashed run); a degraded run ends
 *   FALLBACK and is not counted. One unlucky run among three does not page; a quarter of the runs of fifteen minutes
 *   failing is an outage of a dependency.
 * - `functionErrors` 1: the API and event functions answer every caller error with a status code and never throw
 *   for it, so a Lambda error there is a crash, a timeout or a cold start that refused its settings.
 * - `runFunctionErrors` 100: the Diagnose function *throws* `DiagnosisTenantBusyError` while an enterprise is at
 *   `TENANT_MAX_CONCURRENT_RUNS`, and the workflow retries it (from 2 s, ×1.5, at most 30 s, full jitter): one
 *   waiting run makes about 26 such errors in five minutes. 100 is about four waiting runs; Diagnose's real failures
 *   are alarmed more precisely by the FAILED rate and the workflow failures.
 * - `throttles` 1: no function has reserved concurrency, so a throttle means the account's concurrency ran out; a
 *   throttled API function is an error answer to a caller.
 * - `tableThrottleEvents` 1: an on-demand table throttles only past a partition's or the account's limits; the SDK
 *   retries, but an audit write that stays throttled fails its run (AUDIT_FAILED).
 * - `workflowFailures` 1: a failed or timed-out execution is a run the workflow could not finish (its retries
 *   exhausted, or refused input); each one is worth a look.
 * - `workflowAborts` 10 per `workflowAbortsPeriodSeconds` 3600: cancelling a running run stops its execution, so
 *   aborts are normal user acts; ten in an hour means executions are being stopped in bulk (console, a script).
 * - `runDurationP95Seconds` 240 over 900 s: the Diagnose function stops at 5 minutes and a run's own deadline comes
 *   `FLUSH_RESERVE_MS` before; a p95 above 4 minutes means one run in twenty is close to being cut by its deadline
 *   (a slow model endpoint or too generous limits).
 */
export const alarmSettingsSchema = v.strictObject({
  /** An address subscribed to the alarm topic (SNS sends it a confirmation mail first). */
  email: v.optional(v.pipe(v.string(), v.email())),
  periodSeconds: v.optional(v.picklist([60, 300, 900, 3600]), 300),
  failedRatePercent: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(100)), 25),
  failedRateMinimumRuns: v.optional(count(1), 4),
  failedRatePeriodSeconds: v.optional(v.picklist([300, 900, 3600]), 900),
  functionErrors: v.optional(count(1), 1),
  runFunctionErrors: v.optional(count(1), 100),
  throttles: v.optional(count(1), 1),
  tableThrottleEvents: v.optional(count(1), 1),
  workflowFailures: v.optional(count(1), 1),
  workflowAborts: v.optional(count(1), 10),
  workflowAbortsPeriodSeconds: v.optional(v.picklist([300, 900, 3600]), 3600),
  runDurationP95Seconds: v.optional(v.pipe(v.number(), v.minValue(1), v.maxValue(900)), 240),
  runDurationPeriodSeconds: v.optional(v.picklist([300, 900, 3600]), 900),
});

export type AlarmSettings = v.InferOutput<typeof alarmSettingsSchema>;

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
  topicArn: V;
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

/** The arguments of one `aws.cloudwatch.MetricAlarm`, named as Pulumi names them. */
export interface AlarmDefinition<V> {
  /** The Pulumi resource name: unique in the stage. */
  id: string;
  args: {
    alarmDescription: string;
    comparisonOperator: 'GreaterThanOrEqualToThreshold';
    threshold: number;
    evaluationPeriods: number;
    datapointsToAlarm: number;
    treatMissingData: 'notBreaching';
    alarmActions: V[];
    okActions: V[];
    metricQueries: MetricQuery<V>[];
  };
}

const serviceDimensions = (outcome: string): Record<string, string> => ({
  [SERVICE_DIMENSION]: SERVICE_NAME,
  [OUTCOME_DIMENSION]: outcome,
});

/** A metric query id: CloudWatch wants `^[a-z][a-zA-Z0-9_]*$`. */
const queryId = (...parts: string[]) =>
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

const sumOf = (queries: readonly { id: string }[]) => queries.map((query) => `FILL(${query.id}, 0)`).join(' + ');

/** The FAILED share of the runs that ended in a period, in percent; 0 while fewer than `minimumRuns` ended. */
export function failedRateQueries<V>(settings: AlarmSettings): MetricQuery<V>[] {
  const perOutcome = runMetricPerOutcome<V>(RUN_METRICS.runs, 'Sum', settings.failedRatePeriodSeconds);
  const failed = perOutcome[RUN_OUTCOMES.indexOf('FAILED')];
  if (failed === undefined) throw new Error('RUN_OUTCOMES has no FAILED');
  return [
    ...perOutcome,
    { id: 'runs_total', returnData: false, label: 'runs ended', expression: sumOf(perOutcome) },
    {
      id: 'failed_rate',
      returnData: true,
      label: 'FAILED runs (% of runs ended)',
      expression: `IF(runs_total >= ${settings.failedRateMinimumRuns}, 100 * FILL(${failed.id}, 0) / runs_total, 0)`,
    },
  ];
}

const awsMetric = <V>(
  namespace: string,
  metricName: string,
  dimensions: Record<string, V | string>,
  period: number,
  stat: string,
  id = 'm',
  returnData = true,
): MetricQuery<V> => ({ id, returnData, metric: { namespace, metricName, dimensions, period, stat } });

/**
 * Every alarm of the stage: the FAILED rate; errors and throttles of every function; the table's throttled reads
 * and writes (table and indexes); failed, timed-out and aborted executions of every state machine; the p95 duration
 * of the run function. Each one notifies the topic when it fires and when it recovers.
 */
export function buildAlarmDefinitions<V>(
  resources: MonitoredResources<V>,
  settings: AlarmSettings,
): AlarmDefinition<V>[] {
  const period = settings.periodSeconds;
  const alarm = (
    id: string,
    description: string,
    threshold: number,
    metricQueries: MetricQuery<V>[],
  ): AlarmDefinition<V> => ({
    id: `Alarm${id}`,
    args: {
      alarmDescription: description,
      comparisonOperator: 'GreaterThanOrEqualToThreshold',
      threshold,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      // NOTE: no data is no runs, no invocations or no throttles: never a reason to page.
      treatMissingData: 'notBreaching',
      alarmActions: [resources.topicArn],
      okActions: [resources.topicArn],
      metricQueries,
    },
  });
  const runFunction = resources.functions.find((fn) => fn.id === resources.runFunctionId);
  if (runFunction === undefined) throw new Error(`no function ${resources.runFunctionId} among the monitored ones`);

  const alarms = [
    alarm(
      'RunsFailedRate',
      `At least ${settings.failedRatePercent}% of the runs that ended in ${settings.failedRatePeriodSeconds / 60} min ended FAILED (at least ${settings.failedRateMinimumRuns} runs).`,
      settings.failedRatePercent,
      failedRateQueries(settings),
    ),
  ];
  for (const fn of resources.functions) {
    const run = fn.id === resources.runFunctionId;
    const errors = run ? settings.runFunctionErrors : settings.functionErrors;
    alarms.push(
      alarm(
        `${fn.id}Errors`,
        `${fn.id}: at least ${errors} invocation error(s) in ${period / 60} min${run ? ' (tenant-busy retries included)' : ''}.`,
        errors,
        [awsMetric('AWS/Lambda', 'Errors', { FunctionName: fn.name }, period, 'Sum')],
      ),
      alarm(
        `${fn.id}Throttles`,
        `${fn.id}: at least ${settings.throttles} throttled invocation(s) in ${period / 60} min.`,
        settings.throttles,
        [awsMetric('AWS/Lambda', 'Throttles', { FunctionName: fn.name }, period, 'Sum')],
      ),
    );
  }
  alarms.push(
    alarm(
      'RunDurationP95',
      `${runFunction.id}: p95 duration at least ${settings.runDurationP95Seconds} s over ${settings.runDurationPeriodSeconds / 60} min.`,
      settings.runDurationP95Seconds * 1000,
      [
        awsMetric(
          'AWS/Lambda',
          'Duration',
          { FunctionName: runFunction.name },
          settings.runDurationPeriodSeconds,
          'p95',
        ),
      ],
    ),
  );

  const throttleEvents = tableThrottleQueries(resources, period);
  alarms.push(
    alarm(
      'TableThrottles',
      `DynamoDB table: at least ${settings.tableThrottleEvents} throttled read/write event(s) in ${period / 60} min (table and indexes).`,
      settings.tableThrottleEvents,
      [
        ...throttleEvents,
        { id: 'throttle_events', returnData: true, label: 'throttled events', expression: sumOf(throttleEvents) },
      ],
    ),
  );

  for (const machine of resources.stateMachines) {
    const dimensions = { StateMachineArn: machine.arn };
    alarms.push(
      alarm(
        `${machine.id}Failures`,
        `${machine.id}: at least ${settings.workflowFailures} execution(s) failed or timed out in ${period / 60} min.`,
        settings.workflowFailures,
        [
          awsMetric('AWS/States', 'ExecutionsFailed', dimensions, period, 'Sum', 'failed', false),
          awsMetric('AWS/States', 'ExecutionsTimedOut', dimensions, period, 'Sum', 'timed_out', false),
          {
            id: 'failures',
            returnData: true,
            label: 'failed or timed out',
            expression: 'FILL(failed, 0) + FILL(timed_out, 0)',
          },
        ],
      ),
      alarm(
        `${machine.id}Aborts`,
        `${machine.id}: at least ${settings.workflowAborts} execution(s) aborted in ${settings.workflowAbortsPeriodSeconds / 60} min (a cancel aborts one; many mean a bulk stop).`,
        settings.workflowAborts,
        [awsMetric('AWS/States', 'ExecutionsAborted', dimensions, settings.workflowAbortsPeriodSeconds, 'Sum')],
      ),
    );
  }
  return alarms;
}

/** Throttled read and write events of the table and of each global index (hidden queries). */
function tableThrottleQueries<V>(resources: MonitoredResources<V>, period: number): MetricQuery<V>[] {
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

/** A dashboard widget's metric line in CloudWatch's array form, from a query (shown when it returns data). */
function widgetLine<V>(query: MetricQuery<V>, visible = query.returnData): unknown[] {
  if ('expression' in query) return [{ expression: query.expression, label: query.label, id: query.id, visible }];
  const { namespace, metricName, dimensions, period, stat } = query.metric;
  const options = { id: query.id, stat, period, visible, ...(query.label ? { label: query.label } : {}) };
  return [namespace, metricName, ...Object.entries(dimensions).flat(), options];
}

/**
 * The stage's dashboard body (CloudWatch's JSON, before `JSON.stringify`): runs by outcome and the FAILED rate, run
 * duration p95 by outcome, model and tool calls, tokens, Lambda errors, throttles and p95 duration of every function,
 * the table's throttled events, executions of every state machine, and the API's requests and 5xx.
 */
export function buildDashboardBody<V>(resources: MonitoredResources<V>, settings: AlarmSettings) {
  const period = settings.periodSeconds;
  let row = 0;
  const widget = (title: string, lines: unknown[][], width = 12, extra: Record<string, unknown> = {}) => ({
    type: 'metric',
    width,
    height: 6,
    properties: { title, region: resources.region, period, metrics: lines, ...extra },
  });
  const perOutcome = (metricName: string, stat: string) =>
    RUN_OUTCOMES.map((outcome) => [
      METRICS_NAMESPACE,
      metricName,
      SERVICE_DIMENSION,
      SERVICE_NAME,
      OUTCOME_DIMENSION,
      outcome,
      { stat, label: `${outcome} ${stat}` },
    ]);
  const totalOverOutcomes = (metricName: string, label: string) => {
    const queries = runMetricPerOutcome<V>(metricName, 'Sum', period);
    return [
      ...queries.map((query) => widgetLine(query)),
      [{ expression: sumOf(queries), label, id: queryId(metricName, 'total') }],
    ];
  };
  const perFunction = (metricName: string, stat: string) =>
    resources.functions.map((fn) => ['AWS/Lambda', metricName, 'FunctionName', fn.name, { stat, label: fn.id }]);
  const perMachine = resources.stateMachines.flatMap((machine) =>
    ['ExecutionsStarted', 'ExecutionsSucceeded', 'ExecutionsFailed', 'ExecutionsTimedOut', 'ExecutionsAborted'].map(
      (metricName) => [
        'AWS/States',
        metricName,
        'StateMachineArn',
        machine.arn,
        { stat: 'Sum', label: `${machine.id} ${metricName.replace('Executions', '')}` },
      ],
    ),
  );
  const throttleEvents = tableThrottleQueries(resources, period);

  const widgets = [
    widget('Runs by outcome', perOutcome(RUN_METRICS.runs, 'Sum'), 12, { stacked: true, view: 'timeSeries' }),
    widget(
      'FAILED runs (% of runs ended)',
      failedRateQueries<V>(settings).map((query) => widgetLine(query)),
      12,
      {
        period: settings.failedRatePeriodSeconds,
        yAxis: { left: { min: 0, max: 100 } },
      },
    ),
    widget('Run duration p95 (ms) by outcome', perOutcome(RUN_METRICS.runDuration, 'p95')),
    widget('Model and tool calls', [
      ...totalOverOutcomes(RUN_METRICS.modelCalls, 'model calls'),
      ...totalOverOutcomes(RUN_METRICS.toolCalls, 'tool calls'),
      ...totalOverOutcomes(RUN_METRICS.toolCallsError, 'tool calls ERROR'),
      ...totalOverOutcomes(RUN_METRICS.toolCallsRejected, 'tool calls rejected'),
    ]),
    widget('Tokens', [
      ...totalOverOutcomes(RUN_METRICS.inputTokens, 'input'),
      ...totalOverOutcomes(RUN_METRICS.cachedInputTokens, 'cached input'),
      ...totalOverOutcomes(RUN_METRICS.outputTokens, 'output'),
    ]),
    widget('Lambda errors', perFunction('Errors', 'Sum')),
    widget('Lambda throttles', perFunction('Throttles', 'Sum')),
    widget('Lambda duration p95 (ms)', perFunction('Duration', 'p95')),
    widget(
      'DynamoDB throttled events',
      throttleEvents.map((query) => widgetLine(query, true)),
    ),
    widget('Workflow executions', perMachine),
    widget('API requests, 4xx and 5xx', [
      ['AWS/ApiGateway', 'Count', 'ApiId', resources.apiId, { stat: 'Sum', label: 'requests' }],
      ['AWS/ApiGateway', '5xx', 'ApiId', resources.apiId, { stat: 'Sum', label: '5xx' }],
      ['AWS/ApiGateway', '4xx', 'ApiId', resources.apiId, { stat: 'Sum', label: '4xx' }],
    ]),
  ].map((entry, index) => {
    // Two widgets a row, 24 units wide.
    const placed = { ...entry, x: (index % 2) * 12, y: row };
    if (index % 2 === 1) row += entry.height;
    return placed;
  });
  return { widgets };
}
