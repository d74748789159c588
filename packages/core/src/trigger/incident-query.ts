import type { TriggerSource } from '../run/run-trigger.ts';
import { truncateChars } from '../run/utf8.ts';
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

/** The longest alarm name and reason kept in a question (the rest is cut, on a character boundary). */
export const QUERY_TEXT_CAPS = Object.freeze({ alarm: 256, reason: 1_000 });

export interface IncidentQueryFacts {
  source: TriggerSource;
  alarm: string;
  reason: string;
  /** When the incident began (epoch ms), written in `timeZone` with its offset. */
  startedAt: number;
  timeZone: string;
  service?: string | undefined;
}

/**
 * The run's question, written by the system from the event: the mapping's template or the source's default, each
 * placeholder filled once (a value that holds `{reason}` stays as it is). NOTE: the sender's texts (the alarm's name
 * and reason) are bounded and lose their control characters; they stay data inside the question, whose tenant and
 * window are the mapping's and the code's whatever they say.
 */
export function buildIncidentQuery(facts: IncidentQueryFacts, template?: string): string {
  const values: Record<Placeholder, string> = {
    alarm: cleanText(facts.alarm, QUERY_TEXT_CAPS.alarm),
    // NOTE: without its own closing full stop: the template ends the sentence.
    reason: cleanText(facts.reason, QUERY_TEXT_CAPS.reason).replace(/[.。]+$/u, '') || '（无）',
    startedAt: formatZonedIso(facts.startedAt, facts.timeZone),
    timezone: facts.timeZone,
    service: facts.service ?? '未指定',
  };
  return (template ?? DEFAULT_QUERY_TEMPLATES[facts.source]).replace(
    /\{(alarm|reason|startedAt|timezone|service)\}/g,
    (_, name: Placeholder) => values[name],
  );
}

function cleanText(text: string, maxChars: number): string {
  return truncateChars(
    text
      .toWellFormed()
      .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
      .trim(),
    maxChars,
  );
}
