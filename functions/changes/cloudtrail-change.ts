import {
  boundChangeText,
  boundChangeUrl,
  CHANGE_TEXT_CAPS,
  type ChangeKind,
  type ChangeSourceMapping,
  findCloudTrailSource,
} from '@diagnosis/core';
import * as v from 'valibot';
import { boundedEventId, type ChangeDecision, ISO_INSTANT, utcInstant } from './change-decision.ts';
import { CLOUDTRAIL_NOISE_SOURCES } from './cloudtrail-noise-sources.ts';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));

/**
 * A CloudTrail management event as EventBridge delivers it (`detail-type: "AWS API Call via CloudTrail"`): the
 * envelope's `account` and `region`, and the call's `eventTime`, `eventSource`, `eventName`, `userIdentity`,
 * `requestParameters`, `readOnly`, `errorCode`, `eventID`, `awsRegion` and `recipientAccountId`. Only the fields read
 * are checked (AWS adds fields).
 */
export const cloudTrailEventSchema = v.object({
  'detail-type': v.literal('AWS API Call via CloudTrail'),
  account: v.optional(text(12)),
  region: v.optional(text(30)),
  detail: v.object({
    eventTime: v.pipe(
      v.string(),
      v.maxLength(64),
      v.regex(ISO_INSTANT),
      v.check((value) => Number.isFinite(Date.parse(value))),
    ),
    eventSource: v.pipe(v.string(), v.regex(/^[a-z0-9.-]{1,100}$/)),
    eventName: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_]{1,128}$/)),
    eventID: v.pipe(v.string(), v.minLength(1), v.maxLength(CHANGE_TEXT_CAPS.eventId)),
    awsRegion: v.optional(text(30)),
    recipientAccountId: v.optional(text(12)),
    readOnly: v.optional(v.boolean()),
    managementEvent: v.optional(v.boolean()),
    errorCode: v.optional(v.nullable(text(200))),
    userIdentity: v.optional(
      v.nullable(
        v.object({
          type: v.optional(text(100)),
          arn: v.optional(text(2_048)),
          principalId: v.optional(text(256)),
          invokedBy: v.optional(text(256)),
        }),
      ),
    ),
    requestParameters: v.optional(v.nullable(v.record(v.string(), v.unknown()))),
  }),
});
export type CloudTrailEvent = v.InferOutput<typeof cloudTrailEventSchema>;

/**
 * The request parameters kept of a call: the names, ids and ARNs that say what it changed (`functionName`,
 * `dBInstanceIdentifier`, `cluster`, `service`…), at most three, each a string of at most 200 characters. NOTE: never
 * anything else: a call's parameters can hold a value (a parameter's, an environment variable's) that must not be kept.
 */
function changedResources(parameters: Record<string, unknown> | null | undefined): string[] {
  if (parameters === null || parameters === undefined) return [];
  return Object.entries(parameters)
    .filter(
      ([key, value]) =>
        typeof value === 'string' &&
        value.length > 0 &&
        value.length <= 200 &&
        /(name|id|arn|identifier|cluster|service|bucket)$/i.test(key),
    )
    .slice(0, 3)
    .map(([key, value]) => `${key}=${value as string}`);
}

/** A configuration call (a parameter, a configuration, a setting) or any other write (infrastructure). */
function kindOf(eventSource: string, eventName: string): ChangeKind {
  if (/^(ssm|appconfig|secretsmanager)\./.test(eventSource)) return 'config';
  return /(Configuration|Parameter|Setting|Attribute)/.test(eventName) ? 'config' : 'infra';
}

/**
 * A CloudTrail write call as a change: mapped by its account and region (the envelope's and the call's, which must
 * agree, as an alarm's event and ARN must) and its event source. Read-only, failed and noise calls are no change.
 */
export function cloudTrailChangeOf(
  event: CloudTrailEvent,
  mappings: readonly ChangeSourceMapping[],
  receivedAt: number,
): ChangeDecision {
  const { detail } = event;
  if (
    detail.readOnly !== false ||
    detail.managementEvent === false ||
    (detail.errorCode !== undefined && detail.errorCode !== null) ||
    (CLOUDTRAIL_NOISE_SOURCES as readonly string[]).includes(detail.eventSource)
  ) {
    return { kind: 'ignored', code: 'NOT_A_CHANGE' };
  }
  const account = event.account === detail.recipientAccountId ? event.account : undefined;
  const region = event.region === detail.awsRegion ? event.region : undefined;
  const mapping = findCloudTrailSource(mappings, { account, region, eventSource: detail.eventSource });
  if (mapping === undefined || account === undefined) return { kind: 'ignored', code: 'UNMAPPED' };
  const service = detail.eventSource.replace(/\.amazonaws\.com$/, '');
  const resources = changedResources(detail.requestParameters);
  const identity = detail.userIdentity;
  const consoleRegion = region ?? detail.awsRegion ?? 'us-east-1';
  return {
    kind: 'change',
    change: {
      enterpriseId: mapping.enterpriseId,
      source: 'cloudtrail',
      origin: `${account}/${region ?? '*'}`,
      eventId: boundedEventId(detail.eventID),
      at: utcInstant(Date.parse(detail.eventTime)),
      service: mapping.service ?? null,
      environment: boundChangeText(region ?? null, CHANGE_TEXT_CAPS.environment),
      kind: kindOf(detail.eventSource, detail.eventName),
      ref: boundChangeText(`${service}:${detail.eventName}`, CHANGE_TEXT_CAPS.ref),
      actor: boundChangeText(
        identity?.arn ?? identity?.invokedBy ?? identity?.principalId ?? null,
        CHANGE_TEXT_CAPS.actor,
      ),
      summary:
        boundChangeText(
          [`${detail.eventSource} ${detail.eventName}`, ...resources].join(' '),
          CHANGE_TEXT_CAPS.summary,
        ) ?? detail.eventName,
      url: consoleEventUrl(consoleRegion, detail.eventID),
      receivedAt: utcInstant(receivedAt),
    },
  };
}

/** The CloudTrail console's page of the event (the China regions' console is on `amazonaws.cn`), or null. */
function consoleEventUrl(region: string, eventId: string): string | null {
  if (!/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/.test(region)) return null;
  const host = region.startsWith('cn-') ? `${region}.console.amazonaws.cn` : `${region}.console.aws.amazon.com`;
  return boundChangeUrl(`https://${host}/cloudtrail/home?region=${region}#/events/${encodeURIComponent(eventId)}`);
}
