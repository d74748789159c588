import { findCloudWatchMapping, TRIGGER_TEXT_CAPS } from '@diagnosis/core';
import * as v from 'valibot';
import { incidentOf, type TriggerConfig, type TriggerDecision } from './incident-facts.ts';

const ALARM_ARN = /^arn:aws[a-z-]*:cloudwatch:[a-z0-9-]{1,30}:\d{12}:alarm:[^\s]{1,255}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:?\d{2})$/;

const stateSchema = v.object({
  value: v.picklist(['OK', 'ALARM', 'INSUFFICIENT_DATA']),
  reason: v.optional(v.pipe(v.string(), v.maxLength(16_384)), ''),
  timestamp: v.pipe(
    v.string(),
    v.regex(TIMESTAMP),
    v.check((text) => Number.isFinite(Date.parse(text))),
  ),
});

/**
 * The EventBridge event `CloudWatch Alarm State Change`, as AWS documents it, for metric and composite alarms alike
 * (a composite's `configuration` has `alarmRule` instead of `metrics`; neither is read here). NOTE: `v.object`, not
 * strict: AWS adds fields to its events (`alarmTags`, `actionsSuppressedBy`…), and only the fields read are checked.
 */
const alarmEventSchema = v.object({
  version: v.literal('0'),
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(TRIGGER_TEXT_CAPS.eventId)),
  'detail-type': v.literal('CloudWatch Alarm State Change'),
  source: v.literal('aws.cloudwatch'),
  time: v.string(),
  account: v.optional(v.pipe(v.string(), v.maxLength(12))),
  region: v.optional(v.pipe(v.string(), v.maxLength(30))),
  resources: v.pipe(v.array(v.pipe(v.string(), v.regex(ALARM_ARN))), v.minLength(1), v.maxLength(1)),
  detail: v.object({
    alarmName: v.pipe(v.string(), v.minLength(1), v.maxLength(255)),
    state: stateSchema,
    previousState: v.optional(v.object({ value: v.string() })),
  }),
});

/**
 * What a CloudWatch alarm event means here. The incident is the alarm: its key is the alarm's ARN. A transition into
 * ALARM is `TRIGGERED` (it begins an episode: a re-fire once the last run ended and the quiet period passed), an update
 * that stays in ALARM (ALARM → ALARM, a new reason) is `UPDATED` and only recorded; anything else is ignored. The
 * enterprise, service and question come from the first mapping whose `alarmNamePattern` matches the alarm's name.
 * Anything else is ignored with its reason, never thrown: an event of the wrong shape will not get better when Lambda
 * retries it.
 */
export function parseCloudWatchAlarmEvent(raw: unknown, config: TriggerConfig, nowMs: number): TriggerDecision {
  const parsed = v.safeParse(alarmEventSchema, raw);
  if (!parsed.success) return { kind: 'ignored', code: 'MALFORMED_EVENT' };
  const event = parsed.output;
  const { state } = event.detail;
  if (state.value !== 'ALARM') return { kind: 'ignored', code: 'NOT_FIRING' };
  const [alarmArn = ''] = event.resources;
  // NOTE: `arn:<partition>:cloudwatch:<region>:<account>:alarm:<name>` (checked above); the origin is what both the
  // event and the ARN say, so a mapping's `accountId` / `region` condition holds on both.
  const [, , , arnRegion, arnAccount] = alarmArn.split(':');
  const origin = {
    account: event.account === arnAccount ? arnAccount : undefined,
    region: event.region === arnRegion ? arnRegion : undefined,
  };
  const mapping = findCloudWatchMapping(config.mappings, event.detail.alarmName, origin);
  if (mapping === undefined) return { kind: 'ignored', code: 'UNMAPPED' };
  const enteredAlarmAt = Date.parse(state.timestamp);
  return incidentOf(
    {
      source: 'cloudwatch',
      incidentKey: alarmArn,
      eventId: event.id,
      kind: event.detail.previousState?.value === 'ALARM' ? 'UPDATED' : 'TRIGGERED',
      alarm: event.detail.alarmName,
      reason: state.reason,
      startedAt: enteredAlarmAt,
    },
    mapping,
    config,
    nowMs,
  );
}
