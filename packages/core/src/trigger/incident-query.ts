import { boundSenderText, CUT_MARK, type TriggerSource } from '../run/run-trigger.ts';
import { truncateUtf8, utf8Bytes } from '../run/utf8.ts';
import { formatZonedIso } from '../run/zoned-time.ts';

/** The placeholders a question template may name. */
export const QUERY_PLACEHOLDERS = Object.freeze(['alarm', 'reason', 'startedAt', 'timezone', 'service'] as const);
type Placeholder = (typeof QUERY_PLACEHOLDERS)[number];

/** The fixed question of each source, in Chinese like the example world; a mapping may give its own. */
export const DEFAULT_QUERY_TEMPLATES: Readonly<Record<TriggerSource, string>> = Object.freeze({
  cloudwatch:
    'CloudWatch 告警「{alarm}」于 {startedAt}（{timezone}）进入 ALARM 状态。状态原因：{reason}。相关服务：{service}。请诊断原因，并给出证据。',
  alertmanager:
    'Alertmanager 告警「{alarm}」于 {startedAt}（{timezone}）开始触发。告警摘要：{reason}。相关服务：{service}。请诊断原因，并给出证据。',
  pagerduty:
    'PagerDuty 事件「{alarm}」于 {startedAt}（{timezone}）触发。事件说明：{reason}。相关服务：{service}。请诊断原因，并给出证据。',
});

/** The longest alarm name and reason kept in a question, in UTF-16 units (the rest is cut, on a character boundary). */
export const QUERY_TEXT_CAPS = Object.freeze({ alarm: 256, reason: 1_000 });

/**
 * The UTF-8 bytes of `{reason}` a mapping's template must leave room for, per occurrence, with the alarm's name at
 * its cap: the deploy (and the Trigger functions' cold start) refuse a template that cannot, so every question fits
 * the query's byte limit with at least this much of the sender's reason.
 */
export const MIN_REASON_BYTES = 96;

export interface IncidentQueryFacts {
  source: TriggerSource;
  alarm: string;
  reason: string;
  /** When the incident began (epoch ms), written in `timeZone` with its offset. */
  startedAt: number;
  timeZone: string;
  service?: string | undefined;
}

const PLACEHOLDER = /\{(alarm|reason|startedAt|timezone|service)\}/g;

/**
 * The run's question, written by the system from the event: the mapping's template or the source's default, each
 * placeholder filled once (a value that holds `{reason}` stays as it is), within `maxBytes` UTF-8 bytes (the query's
 * limit): `{reason}` is cut first, then `{alarm}`, each on a character boundary and marked with {@link CUT_MARK}.
 * NOTE: the sender's texts (the alarm's name and reason) are bounded and lose their control characters; they stay
 * data inside the question, whose tenant and window are the mapping's and the code's whatever they say. Bytes, not
 * UTF-16 units: a Chinese character is one unit and three bytes (issue 32 item 5).
 */
export function buildIncidentQuery(
  facts: IncidentQueryFacts,
  template?: string,
  maxBytes: number = Number.POSITIVE_INFINITY,
): string {
  const source = template ?? DEFAULT_QUERY_TEMPLATES[facts.source];
  const fixed = {
    startedAt: formatZonedIso(facts.startedAt, facts.timeZone),
    timezone: facts.timeZone,
    service: facts.service ?? '未指定',
  };
  const fill = (alarm: string, reason: string) => {
    const values: Record<Placeholder, string> = { ...fixed, alarm, reason };
    return source.replace(PLACEHOLDER, (_, name: Placeholder) => values[name]);
  };
  const alarm = boundSenderText(facts.alarm, QUERY_TEXT_CAPS.alarm);
  // NOTE: without its own closing full stop: the template ends the sentence.
  const reason = boundSenderText(facts.reason, QUERY_TEXT_CAPS.reason).replace(/[.。]+$/u, '') || '（无）';
  const whole = fill(alarm, reason);
  if (utf8Bytes(whole) <= maxBytes) return whole;
  const count = (name: Placeholder) => source.split(`{${name}}`).length - 1;
  const bare = utf8Bytes(fill('', ''));
  const room = (left: number, times: number) => (times === 0 ? 0 : Math.floor(left / times));
  const reasonCut = cutToBytes(reason, room(maxBytes - bare - count('alarm') * utf8Bytes(alarm), count('reason')));
  const alarmCut = cutToBytes(alarm, room(maxBytes - bare - count('reason') * utf8Bytes(reasonCut), count('alarm')));
  return fill(alarmCut, reasonCut);
}

/**
 * Whether a mapping's question always fits `maxQueryBytes`: built with the alarm's name at its cap in its widest
 * UTF-8 form (three bytes a unit), {@link MIN_REASON_BYTES} of reason per `{reason}`, the longest start time, the
 * deployment's zone and the mapping's service, it is within the limit. The deploy refuses a mapping that is not.
 */
export function incidentQueryFits(
  mapping: { source: TriggerSource; query?: string | undefined; service?: string | undefined },
  settings: { timeZone: string; maxQueryBytes: number },
): boolean {
  const widest = buildIncidentQuery(
    {
      source: mapping.source,
      alarm: '中'.repeat(QUERY_TEXT_CAPS.alarm),
      reason: 'x'.repeat(MIN_REASON_BYTES),
      startedAt: Date.UTC(2026, 10, 30),
      timeZone: settings.timeZone,
      service: mapping.service,
    },
    mapping.query,
  );
  return utf8Bytes(widest) <= settings.maxQueryBytes;
}

/** `text` within `maxBytes` UTF-8 bytes: whole, or its first characters and {@link CUT_MARK} (nothing if no room). */
function cutToBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  const markBytes = utf8Bytes(CUT_MARK);
  if (maxBytes < markBytes) return '';
  return `${truncateUtf8(text, maxBytes - markBytes)}${CUT_MARK}`;
}
