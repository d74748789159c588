/**
 * The deployment's alarms as data: a pure function of the monitored resources' names and the stage's alarm settings,
 * so the tests read exactly what `sst.config.ts` creates (one `aws.cloudwatch.MetricAlarm` per definition).
 */
import * as v from 'valibot';
import { buildDeliveryAlarms, deliveryAlarmSettingsEntries } from './delivery-alarms.ts';
import {
  awsMetric,
  failedRateQueries,
  type MetricQuery,
  type MonitoredResources,
  sumOf,
  tableThrottleQueries,
  triggerFailuresQuery,
  webhookRefusalsQuery,
} from './metric-queries.ts';

export type { MetricQuery, MonitoredResources };

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
 * - `throttles` 1: Diagnose and the API functions have reserved concurrency (the stage file's `reservedConcurrency`),
 *   so a throttle means a pool is full — diagnoses beyond Diagnose's reservation (the workflow retries them), or
 *   callers beyond the API's (each throttled call is an error answer to a caller); either is worth a look.
 * - `tableThrottleEvents` 1: an on-demand table throttles only past a partition's or the account's limits; the SDK
 *   retries, but an audit write that stays throttled fails its run (AUDIT_FAILED).
 * - `workflowFailures` 1: a failed or timed-out execution is a run the workflow could not finish (its retries
 *   exhausted, or refused input); each one is worth a look.
 * - `workflowAborts` 10 per `workflowAbortsPeriodSeconds` 3600: cancelling a running run stops its execution, so
 *   aborts are normal user acts; ten in an hour means executions are being stopped in bulk (console, a script).
 * - `runDurationP95Seconds` 240 over 900 s: the Diagnose function stops at 5 minutes and a run's own deadline comes
 *   `FLUSH_RESERVE_MS` before; a p95 above 4 minutes means one run in twenty is close to being cut by its deadline
 *   (a slow model endpoint or too generous limits).
 * - `triggerDeadLetterMessages` 1: an alarm event in TriggerDeadLetters is a diagnosis that should have started and
 *   did not after three tries; each one is worth a look (the message holds the event; start it again by hand).
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
  /** Trigger events (alarms, webhooks) whose run could not be started: each is an incident nobody diagnosed. */
  triggerFailures: v.optional(count(1), 1),
  triggerDeadLetterMessages: v.optional(count(1), 1),
  /**
   * Webhook requests refused in a period: a sender with a wrong secret, or someone forging or replaying requests;
   * a few are noise (a rotation in progress), 20 in five minutes is worth a look.
   */
  webhookRefusals: v.optional(count(1), 20),
  ...deliveryAlarmSettingsEntries,
});

export type AlarmSettings = v.InferOutput<typeof alarmSettingsSchema>;

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
      failedRateQueries(settings.failedRatePeriodSeconds, settings.failedRateMinimumRuns),
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
  if (resources.triggers === true) {
    alarms.push(
      alarm(
        'TriggerFailures',
        `Triggers: at least ${settings.triggerFailures} alarm or webhook event(s) whose run could not be started in ${period / 60} min.`,
        settings.triggerFailures,
        [triggerFailuresQuery(period)],
      ),
      alarm(
        'TriggerWebhookRefusals',
        `Triggers: at least ${settings.webhookRefusals} webhook request(s) refused (unsigned, badly signed, replayed, stale or oversized) in ${period / 60} min.`,
        settings.webhookRefusals,
        [webhookRefusalsQuery(period)],
      ),
    );
  }
  if (resources.triggerDeadLetters !== undefined) {
    alarms.push(
      alarm(
        'TriggerDeadLetterQueueDepth',
        `Triggers: at least ${settings.triggerDeadLetterMessages} alarm event(s) in TriggerDeadLetters (Trigger failed it three times; its run was never started).`,
        settings.triggerDeadLetterMessages,
        [
          awsMetric(
            'AWS/SQS',
            'ApproximateNumberOfMessagesVisible',
            { QueueName: resources.triggerDeadLetters.queueName },
            period,
            'Maximum',
          ),
        ],
      ),
    );
  }
  if (resources.delivery !== undefined) alarms.push(...buildDeliveryAlarms(resources.delivery, settings, alarm));
  return alarms;
}
