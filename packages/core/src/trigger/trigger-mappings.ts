import * as v from 'valibot';
import { ENTERPRISE_ID_PATTERN } from '../run/ids.ts';
import { MAX_INCIDENT_WINDOW_MS } from '../run/incident-window.ts';
import { matchesGlob } from './glob-match.ts';
import { incidentQueryFits, QUERY_PLACEHOLDERS } from './incident-query.ts';

const enterpriseId = v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN));
const service = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/));
/**
 * A mapping's own question template (Chinese like the defaults); `{alarm}`, `{reason}`, `{startedAt}`, `{timezone}`
 * and `{service}` are filled in by the system, any other `{…}` is refused so a typo cannot reach the model.
 */
const queryTemplate = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(1_000),
  v.check(
    (template) =>
      [...template.matchAll(/\{([^{}]*)\}/g)].every((match) => QUERY_PLACEHOLDERS.includes(match[1] as never)),
    'only the documented placeholders',
  ),
);
const lookbackMinutes = v.pipe(
  v.number(),
  v.safeInteger(),
  v.minValue(1),
  v.maxValue(MAX_INCIDENT_WINDOW_MS / 60_000 - 1),
);
const common = {
  enterpriseId,
  service: v.exactOptional(service),
  query: v.exactOptional(queryTemplate),
  /** Minutes before the incident's start that its window opens (default: TRIGGER_LOOKBACK_MINUTES). */
  lookbackMinutes: v.exactOptional(lookbackMinutes),
};

/**
 * `alarmNamePattern`: the alarm's name, where `*` matches any run of characters (a linear-time glob, see
 * {@link matchesGlob}); at least one other character, so no mapping takes every alarm by accident.
 */
const cloudwatchMapping = v.strictObject({
  source: v.literal('cloudwatch'),
  alarmNamePattern: v.pipe(v.string(), v.minLength(1), v.maxLength(255), v.regex(/[^*]/, 'not only stars')),
  /**
   * The AWS account the alarm must belong to (the event's `account` and its alarm ARN's): with a cross-account event
   * bus, another account could otherwise name an alarm into this mapping.
   */
  accountId: v.exactOptional(v.pipe(v.string(), v.regex(/^\d{12}$/))),
  /** The region the alarm must be in (the event's `region` and its alarm ARN's). */
  region: v.exactOptional(v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/))),
  ...common,
});

/**
 * A webhook mapping's own credential: the name of an SST secret (`Webhook…`) holding its bearer token(s) or signing
 * secret(s), comma-separated during a rotation. A request is matched only against the mappings of the credentials
 * it proved, so one mapping's token cannot start runs for another mapping's enterprise. Absent: the source's shared
 * secret (`AlertmanagerWebhookToken`, `PagerDutyWebhookSecrets`).
 */
export const WEBHOOK_SECRET_NAME_PATTERN = /^Webhook[A-Z0-9][A-Za-z0-9]{0,52}$/;
const webhookSecret = v.exactOptional(v.pipe(v.string(), v.regex(WEBHOOK_SECRET_NAME_PATTERN)));

/** Alertmanager: every label named here must equal the group's `commonLabels` value exactly. */
const alertmanagerMapping = v.strictObject({
  source: v.literal('alertmanager'),
  secret: webhookSecret,
  labels: v.pipe(
    v.record(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,99}$/)), v.pipe(v.string(), v.maxLength(200))),
    v.check((labels) => Object.keys(labels).length >= 1 && Object.keys(labels).length <= 10, '1 to 10 labels'),
  ),
  ...common,
});

/** PagerDuty: the incident's service id (`event.data.service.id`), compared exactly. */
const pagerdutyMapping = v.strictObject({
  source: v.literal('pagerduty'),
  secret: webhookSecret,
  serviceId: v.pipe(v.string(), v.regex(/^[A-Z0-9]{1,32}$/)),
  ...common,
});

/** The stage file's `triggers`: which alarms and webhooks start runs, for which enterprise, service and question. */
export const triggerMappingsSchema = v.pipe(
  v.array(v.variant('source', [cloudwatchMapping, alertmanagerMapping, pagerdutyMapping])),
  v.maxLength(100),
);

export type TriggerMapping = v.InferOutput<typeof triggerMappingsSchema>[number];
export type CloudWatchMapping = Extract<TriggerMapping, { source: 'cloudwatch' }>;
export type AlertmanagerMapping = Extract<TriggerMapping, { source: 'alertmanager' }>;
export type PagerDutyMapping = Extract<TriggerMapping, { source: 'pagerduty' }>;

/**
 * Where an alarm event comes from: its account and region, as both the event and the alarm's ARN say (a field the two
 * disagree on, or the event lacks, is undefined and matches no mapping that names it).
 */
export interface AlarmOrigin {
  account?: string | undefined;
  region?: string | undefined;
}

/**
 * The first CloudWatch mapping whose pattern matches the alarm's name and whose `accountId` and `region`, when it
 * names them, equal the alarm's origin exactly; or undefined (the alarm starts nothing).
 */
export function findCloudWatchMapping(
  mappings: readonly TriggerMapping[],
  alarmName: string,
  origin: AlarmOrigin = {},
) {
  return mappings.find(
    (mapping): mapping is CloudWatchMapping =>
      mapping.source === 'cloudwatch' &&
      (mapping.accountId === undefined || mapping.accountId === origin.account) &&
      (mapping.region === undefined || mapping.region === origin.region) &&
      matchesGlob(mapping.alarmNamePattern, alarmName),
  );
}

/** The first Alertmanager mapping whose labels all equal the group's common labels. */
export function findAlertmanagerMapping(mappings: readonly TriggerMapping[], commonLabels: Record<string, string>) {
  return mappings.find(
    (mapping): mapping is AlertmanagerMapping =>
      mapping.source === 'alertmanager' &&
      Object.entries(mapping.labels).every(
        ([name, value]) => Object.hasOwn(commonLabels, name) && commonLabels[name] === value,
      ),
  );
}

/** The first PagerDuty mapping of the incident's service. */
export function findPagerDutyMapping(mappings: readonly TriggerMapping[], serviceId: string) {
  return mappings.find(
    (mapping): mapping is PagerDutyMapping => mapping.source === 'pagerduty' && mapping.serviceId === serviceId,
  );
}

/**
 * The indexes of the mappings whose question cannot always fit the query's byte limit (see `incidentQueryFits`):
 * the deploy refuses them naming `triggers.<index>.query`, the Trigger functions' cold start `TRIGGERS.<index>.query`.
 */
export function mappingsOverQueryLimit(
  mappings: readonly TriggerMapping[],
  settings: { timeZone: string; maxQueryBytes: number },
): number[] {
  return mappings.flatMap((mapping, index) => (incidentQueryFits(mapping, settings) ? [] : [index]));
}

/** The SST secrets the webhook mappings name, sorted (each becomes one `sst.Secret`, linked to TriggerWebhook). */
export function webhookSecretNames(mappings: readonly TriggerMapping[]): string[] {
  const names = new Set<string>();
  for (const mapping of mappings) {
    if (mapping.source !== 'cloudwatch' && mapping.secret !== undefined) names.add(mapping.secret);
  }
  return [...names].sort();
}
