import { type DiagnosisResult, emptyRunUsage } from '@diagnosis/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  type AlarmDefinition,
  alarmSettingsSchema,
  buildAlarmDefinitions,
  type MetricQuery,
  type MonitoredResources,
} from '../../../deploy/alarms.ts';
import { buildDashboardBody } from '../../../deploy/dashboard.ts';
import { METRICS_NAMESPACE, RUN_OUTCOMES } from '../../../functions/lambda/metric-names.ts';
import { createObservability, recordRunMetrics } from '../../../functions/lambda/observability.ts';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:diagnosis-agent-prod-AlarmsTopic';
const defaults = v.parse(alarmSettingsSchema, {});

function monitored(functionIds: readonly string[]): MonitoredResources<string> {
  return {
    region: 'eu-west-1',
    functions: functionIds.map((id) => ({ id, name: `diagnosis-agent-prod-${id}Function-abc123` })),
    runFunctionId: 'Diagnose',
    tableName: 'diagnosis-agent-prod-DiagnosisTableTable-xyz',
    globalIndexNames: ['gsi1'],
    stateMachines: [
      { id: 'DiagnosisWorkflow', arn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:DiagnosisWorkflow-1' },
      { id: 'DiagnosisBatch', arn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-agent-prod-Batch' },
    ],
    apiId: 'a1b2c3',
    topicArn: TOPIC,
  };
}

// NOTE: sst-config.test.ts runs the real config and checks that each function it creates has both alarms.
const functionIds = [
  'Diagnose',
  'StartDiagnosis',
  'CancelRun',
  'GetRun',
  'GetRunAudit',
  'GetRunReasoning',
  'OnWorkflowStopped',
];
const resources = monitored(functionIds);
const alarms = buildAlarmDefinitions(resources, defaults);
const byId = (id: string) => alarms.find((alarm) => alarm.id === id);
const metricsOf = (queries: MetricQuery<string>[]) =>
  queries.flatMap((query) => ('metric' in query ? [query.metric] : []));

/** What Powertools really emits for one run of each outcome (its EMF document), through `recordRunMetrics`. */
function emittedRunMetrics() {
  return RUN_OUTCOMES.map((status) => {
    const { metrics } = createObservability('Diagnose');
    const result: DiagnosisResult = {
      runId: 'run-1',
      status,
      report: { kind: 'FAILED', error_code: 'MODEL_FAILED' } as unknown as DiagnosisResult['report'],
      stopReason: null,
      progress: null,
      usage: emptyRunUsage(),
    };
    recordRunMetrics(metrics, result, 1234);
    const document = metrics.serializeMetrics() as unknown as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
    };
    const [directive] = document._aws.CloudWatchMetrics;
    if (directive === undefined) throw new Error('no EMF directive');
    const dimensionNames = directive.Dimensions.flat();
    return {
      namespace: directive.Namespace,
      dimensions: Object.fromEntries(dimensionNames.map((name) => [name, document[name]])),
      names: directive.Metrics.map((metric) => metric.Name),
    };
  });
}

describe('buildAlarmDefinitions', () => {
  it('gives every function an errors alarm and a throttles alarm on its own name', () => {
    for (const fn of resources.functions) {
      for (const [suffix, metricName] of [
        ['Errors', 'Errors'],
        ['Throttles', 'Throttles'],
      ] as const) {
        const alarm = byId(`Alarm${fn.id}${suffix}`);
        expect(alarm, `${fn.id} ${suffix}`).toBeDefined();
        expect(metricsOf(alarm?.args.metricQueries ?? [])).toEqual([
          { namespace: 'AWS/Lambda', metricName, dimensions: { FunctionName: fn.name }, period: 300, stat: 'Sum' },
        ]);
      }
    }
  });

  it('notifies the topic from every alarm, when it fires and when it recovers, and never pages on missing data', () => {
    expect(alarms.length).toBe(1 + 2 * functionIds.length + 1 + 1 + 2 * resources.stateMachines.length);
    for (const alarm of alarms) {
      expect(alarm.args.alarmActions).toEqual([TOPIC]);
      expect(alarm.args.okActions).toEqual([TOPIC]);
      expect(alarm.args.treatMissingData).toBe('notBreaching');
    }
    expect(new Set(alarms.map((alarm) => alarm.id)).size).toBe(alarms.length);
  });

  it('watches exactly the run metrics recordRunMetrics emits: namespace, metric name and the full dimension set', () => {
    const emitted = emittedRunMetrics();
    const custom = alarms
      .flatMap((alarm) => metricsOf(alarm.args.metricQueries))
      .filter((metric) => !metric.namespace.startsWith('AWS/'));
    expect(custom.length).toBe(RUN_OUTCOMES.length);
    for (const metric of custom) {
      // NOTE: CloudWatch matches a metric by namespace, name and its whole dimension set: one missing or extra
      // dimension and the alarm watches a metric nobody writes.
      const match = emitted.find(
        (run) =>
          run.namespace === metric.namespace &&
          run.names.includes(metric.metricName) &&
          JSON.stringify(Object.entries(run.dimensions).sort()) ===
            JSON.stringify(Object.entries(metric.dimensions).sort()),
      );
      expect(match, JSON.stringify(metric)).toBeDefined();
    }
    expect(emitted.map((run) => run.namespace)).toEqual(RUN_OUTCOMES.map(() => METRICS_NAMESPACE));
  });

  it('computes the FAILED rate over runs of every outcome, only once enough runs ended', () => {
    const alarm = byId('AlarmRunsFailedRate') as AlarmDefinition<string>;
    const queries = alarm.args.metricQueries;
    const outcomes = metricsOf(queries).map((metric) => metric.dimensions.outcome);
    expect(outcomes).toEqual([...RUN_OUTCOMES]);
    const total = queries.find((query) => query.id === 'runs_total');
    const rate = queries.find((query) => query.returnData);
    expect(total && 'expression' in total ? total.expression : '').toBe(
      'FILL(runs_published, 0) + FILL(runs_fallback, 0) + FILL(runs_failed, 0) + FILL(runs_cancelled, 0)',
    );
    expect(rate && 'expression' in rate ? rate.expression : '').toBe(
      'IF(runs_total >= 4, 100 * FILL(runs_failed, 0) / runs_total, 0)',
    );
    expect(alarm.args.threshold).toBe(25);
  });

  it('takes every threshold from the stage settings', () => {
    const settings = v.parse(alarmSettingsSchema, {
      failedRatePercent: 10,
      failedRateMinimumRuns: 20,
      functionErrors: 3,
      runFunctionErrors: 50,
      throttles: 2,
      tableThrottleEvents: 5,
      workflowFailures: 4,
      workflowAborts: 30,
      runDurationP95Seconds: 200,
    });
    const custom = buildAlarmDefinitions(resources, settings);
    const threshold = (id: string) => custom.find((alarm) => alarm.id === id)?.args.threshold;
    expect(threshold('AlarmRunsFailedRate')).toBe(10);
    expect(JSON.stringify(custom[0]?.args.metricQueries)).toContain('runs_total >= 20');
    expect(threshold('AlarmGetRunErrors')).toBe(3);
    expect(threshold('AlarmDiagnoseErrors')).toBe(50);
    expect(threshold('AlarmDiagnoseThrottles')).toBe(2);
    expect(threshold('AlarmTableThrottles')).toBe(5);
    expect(threshold('AlarmDiagnosisWorkflowFailures')).toBe(4);
    expect(threshold('AlarmDiagnosisBatchAborts')).toBe(30);
    expect(threshold('AlarmRunDurationP95')).toBe(200_000);
  });

  it('alarms on failed and timed-out executions of each state machine, and on aborts apart', () => {
    for (const machine of resources.stateMachines) {
      const failures = byId(`Alarm${machine.id}Failures`) as AlarmDefinition<string>;
      expect(metricsOf(failures.args.metricQueries).map((metric) => [metric.metricName, metric.dimensions])).toEqual([
        ['ExecutionsFailed', { StateMachineArn: machine.arn }],
        ['ExecutionsTimedOut', { StateMachineArn: machine.arn }],
      ]);
      const aborts = byId(`Alarm${machine.id}Aborts`) as AlarmDefinition<string>;
      expect(metricsOf(aborts.args.metricQueries)).toEqual([
        {
          namespace: 'AWS/States',
          metricName: 'ExecutionsAborted',
          dimensions: { StateMachineArn: machine.arn },
          period: 3600,
          stat: 'Sum',
        },
      ]);
    }
  });

  it('counts throttled reads and writes of the table and of its index, and the run function’s p95 duration', () => {
    const table = byId('AlarmTableThrottles') as AlarmDefinition<string>;
    expect(metricsOf(table.args.metricQueries).map((metric) => [metric.metricName, metric.dimensions])).toEqual([
      ['ReadThrottleEvents', { TableName: resources.tableName }],
      ['WriteThrottleEvents', { TableName: resources.tableName }],
      ['ReadThrottleEvents', { TableName: resources.tableName, GlobalSecondaryIndexName: 'gsi1' }],
      ['WriteThrottleEvents', { TableName: resources.tableName, GlobalSecondaryIndexName: 'gsi1' }],
    ]);
    const duration = byId('AlarmRunDurationP95') as AlarmDefinition<string>;
    expect(metricsOf(duration.args.metricQueries)).toEqual([
      {
        namespace: 'AWS/Lambda',
        metricName: 'Duration',
        dimensions: { FunctionName: resources.functions.find((fn) => fn.id === 'Diagnose')?.name },
        period: 900,
        stat: 'p95',
      },
    ]);
    expect(duration.args.threshold).toBe(240_000);
  });

  it('builds metric math CloudWatch accepts: ids well formed, one result, expressions over known ids, ≤ 10 metrics', () => {
    for (const alarm of alarms) {
      const queries = alarm.args.metricQueries;
      const ids = queries.map((query) => query.id);
      for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9_]*$/);
      expect(new Set(ids).size, alarm.id).toBe(ids.length);
      expect(queries.filter((query) => query.returnData).length, alarm.id).toBe(1);
      expect(metricsOf(queries).length).toBeLessThanOrEqual(10);
      for (const query of queries) {
        if (!('expression' in query)) continue;
        const referenced = [...query.expression.matchAll(/\b([a-z][a-zA-Z0-9_]*)\b/g)]
          .map((match) => match[1] ?? '')
          .filter((word) => !['FILL', 'IF'].includes(word));
        const earlier = ids.slice(0, ids.indexOf(query.id));
        for (const id of referenced) expect(earlier, `${alarm.id}: ${query.expression}`).toContain(id);
      }
    }
  });

  it('refuses an unknown threshold name (a typo in the stage file)', () => {
    expect(v.safeParse(alarmSettingsSchema, { failedRatePercnt: 10 }).success).toBe(false);
    expect(v.safeParse(alarmSettingsSchema, { email: 'not an address' }).success).toBe(false);
  });
});

describe('buildDashboardBody', () => {
  const body = buildDashboardBody(resources, defaults);
  const text = JSON.stringify(body);

  it('places every widget on a 24-unit grid with the stage’s region', () => {
    for (const widget of body.widgets) {
      expect(widget.properties.region).toBe('eu-west-1');
      expect(widget.x + widget.width).toBeLessThanOrEqual(24);
    }
    expect(new Set(body.widgets.map((widget) => `${widget.x},${widget.y}`)).size).toBe(body.widgets.length);
  });

  it('graphs every function, the table, both state machines and the API by their deployed names', () => {
    for (const fn of resources.functions) expect(text).toContain(fn.name);
    for (const machine of resources.stateMachines) expect(text).toContain(machine.arn);
    expect(text).toContain(resources.tableName);
    expect(text).toContain('"ApiId","a1b2c3"');
  });

  it('uses each metric id once per widget and refers only to ids of its own widget', () => {
    for (const widget of body.widgets) {
      const lines = widget.properties.metrics as unknown[][];
      const options = lines.map((line) => line.at(-1) as { id?: string; expression?: string });
      const ids = options.flatMap((option) => (option.id === undefined ? [] : [option.id]));
      expect(new Set(ids).size, widget.properties.title).toBe(ids.length);
      for (const option of options) {
        if (option.expression === undefined) continue;
        const referenced = [...option.expression.matchAll(/\b([a-z][a-zA-Z0-9_]*)\b/g)].map((match) => match[1]);
        for (const id of referenced) expect(ids, option.expression).toContain(id);
      }
    }
  });

  it('graphs only run metrics recordRunMetrics emits, with their full dimension set', () => {
    const emitted = emittedRunMetrics();
    const lines = body.widgets
      .flatMap((widget) => widget.properties.metrics as unknown[][])
      .filter((line) => line[0] === METRICS_NAMESPACE);
    expect(lines.length).toBeGreaterThan(RUN_OUTCOMES.length);
    for (const line of lines) {
      const [, metricName, ...rest] = line;
      const pairs = rest.slice(0, -1);
      const dimensions = Object.fromEntries(
        pairs.flatMap((value, index) => (index % 2 === 0 ? [[value, pairs[index + 1]]] : [])),
      );
      const match = emitted.find(
        (run) =>
          run.names.includes(String(metricName)) &&
          JSON.stringify(Object.entries(run.dimensions).sort()) === JSON.stringify(Object.entries(dimensions).sort()),
      );
      expect(match, JSON.stringify(line)).toBeDefined();
    }
  });

  it('stays far below CloudWatch’s dashboard body limit (1 MB)', () => {
    expect(Buffer.byteLength(text)).toBeLessThan(100_000);
  });
});
