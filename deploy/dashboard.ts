/**
 * The stage's CloudWatch dashboard as data (its JSON body before `JSON.stringify`), over the same queries as the
 * alarms; `sst.config.ts` creates one `aws.cloudwatch.Dashboard` with it.
 */
import {
  METRICS_NAMESPACE,
  OUTCOME_DIMENSION,
  RUN_METRICS,
  RUN_OUTCOMES,
  SERVICE_DIMENSION,
  SERVICE_NAME,
  TRIGGER_METRICS,
  TRIGGER_OUTCOMES,
} from '@diagnosis/functions/infrastructure';
import type { AlarmSettings } from './alarms.ts';
import { deliveryDashboardLines } from './delivery-alarms.ts';
import {
  failedRateQueries,
  type MetricQuery,
  type MonitoredResources,
  queryId,
  runMetricPerOutcome,
  sumOf,
  tableThrottleQueries,
  triggerFailuresQuery,
  webhookRefusalsQuery,
} from './metric-queries.ts';

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
      failedRateQueries<V>(settings.failedRatePeriodSeconds, settings.failedRateMinimumRuns).map((query) =>
        widgetLine(query),
      ),
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
    ...(resources.ingressApiId === undefined
      ? []
      : [
          // NOTE: a throttled request (429) counts in 4xx: a sender flood shows here before any function runs.
          widget('Ingress requests, 4xx and 5xx', [
            ['AWS/ApiGateway', 'Count', 'ApiId', resources.ingressApiId, { stat: 'Sum', label: 'requests' }],
            ['AWS/ApiGateway', '5xx', 'ApiId', resources.ingressApiId, { stat: 'Sum', label: '5xx' }],
            ['AWS/ApiGateway', '4xx', 'ApiId', resources.ingressApiId, { stat: 'Sum', label: '4xx' }],
          ]),
        ]),
    ...(resources.triggers === true
      ? [
          widget(
            'Trigger events by outcome',
            TRIGGER_OUTCOMES.map((outcome) => [
              METRICS_NAMESPACE,
              TRIGGER_METRICS.events,
              SERVICE_DIMENSION,
              SERVICE_NAME,
              OUTCOME_DIMENSION,
              outcome,
              { stat: 'Sum', label: outcome },
            ]),
            12,
            { stacked: true, view: 'timeSeries' },
          ),
          widget('Trigger failures, unmapped alarms, refused webhooks', [
            widgetLine(triggerFailuresQuery<V>(period)),
            [
              METRICS_NAMESPACE,
              TRIGGER_METRICS.unmapped,
              SERVICE_DIMENSION,
              SERVICE_NAME,
              OUTCOME_DIMENSION,
              'IGNORED',
              { stat: 'Sum', label: 'unmapped' },
            ],
            widgetLine(webhookRefusalsQuery<V>(period)),
          ]),
        ]
      : []),
    ...(resources.delivery === undefined
      ? []
      : [
          widget('Result events and deliveries', deliveryDashboardLines(resources.delivery).deliveries),
          widget('Delivery queue and dead letters', deliveryDashboardLines(resources.delivery).queues),
        ]),
  ].map((entry, index) => {
    // Two widgets a row, 24 units wide.
    const placed = { ...entry, x: (index % 2) * 12, y: row };
    if (index % 2 === 1) row += entry.height;
    return placed;
  });
  return { widgets };
}
