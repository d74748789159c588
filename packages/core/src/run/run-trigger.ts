import { truncateChars } from './utf8.ts';

/** What can start a run besides a caller: a CloudWatch alarm, an Alertmanager group, a PagerDuty incident. */
export const TRIGGER_SOURCES = Object.freeze(['cloudwatch', 'alertmanager', 'pagerduty'] as const);
export type TriggerSource = (typeof TRIGGER_SOURCES)[number];

/**
 * What started a triggered run, recorded on the run: the source, the incident key computed by code (see
 * `incidentKeyOf`), the sender's event id and the alarm's name as the sender wrote it (bounded). Delivery reads it to
 * say what the result answers.
 */
export interface RunTrigger {
  source: TriggerSource;
  incidentKey: string;
  /** The sender's id of the event that started the run (EventBridge `id`, PagerDuty `event.id`, Alertmanager's key). */
  eventId: string;
  /** The alarm, alert group or incident title, stored through {@link boundTriggerTitle} (≤ 256 units, cut marked). */
  title: string;
  /** When the incident began (the alarm's state change, the earliest `startsAt`, `occurred_at`), UTC ISO. */
  startedAt: string;
}

/** Caps of the texts a sender chose. */
export const TRIGGER_TEXT_CAPS = Object.freeze({ incidentKey: 1_024, eventId: 256, title: 256 });

/**
 * What one event of an incident says about it, as its sender's parser reads it:
 * - `TRIGGERED`: the incident begins (again): CloudWatch's transition into ALARM, PagerDuty's `incident.triggered`.
 * - `REOPENED`: PagerDuty's `incident.reopened`, a re-fire of a resolved incident.
 * - `FIRING`: an Alertmanager notification of a group with firing alerts; whether it begins a new episode is decided
 *   from the incident's stored state (it was resolved, or every firing alert began after its last event).
 * - `UPDATED`: still firing, nothing new begins: CloudWatch's ALARM → ALARM.
 * - `ACKNOWLEDGED`, `RESOLVED`: PagerDuty's `incident.acknowledged` / `.resolved`, Alertmanager's resolved group.
 * Each is recorded on the incident's run; only the first four may start a run.
 */
export const INCIDENT_EVENT_KINDS = Object.freeze([
  'TRIGGERED',
  'REOPENED',
  'FIRING',
  'UPDATED',
  'ACKNOWLEDGED',
  'RESOLVED',
] as const);
export type IncidentEventKind = (typeof INCIDENT_EVENT_KINDS)[number];

/** Whether an event of this kind says the incident is firing (so it may open the incident or start its run). */
export const isFiringKind = (kind: IncidentEventKind): boolean => kind !== 'ACKNOWLEDGED' && kind !== 'RESOLVED';
/** What ends a sender's text that was cut to fit (one UTF-16 unit, three UTF-8 bytes). */
export const CUT_MARK = '…';

/**
 * A sender's title as the run and its incident events keep it: at most {@link TRIGGER_TEXT_CAPS}`.title` UTF-16
 * units, well-formed; a longer one is cut on a character boundary and ends with {@link CUT_MARK}. NOTE: the one bound
 * for every path that stores a title (a run started, an event attached), so no sender's title (PagerDuty allows
 * 1,024 characters) can make the store refuse an item (issue 32 item 4).
 */
export function boundTriggerTitle(title: string): string {
  const text = title.toWellFormed();
  if (text.length <= TRIGGER_TEXT_CAPS.title) return text;
  return `${truncateChars(text, TRIGGER_TEXT_CAPS.title - CUT_MARK.length)}${CUT_MARK}`;
}

/**
 * A sender's text on one line, well-formed, within `maxChars` UTF-16 units (a cut one ends with {@link CUT_MARK}):
 * an alarm's name and reason, a change's summary. NOTE: one bound for every text a sender chooses, so no text can make
 * an event fail forever, and none spans lines where it is shown.
 */
export function boundSenderText(text: string, maxChars: number): string {
  const clean = text
    .toWellFormed()
    // NOTE: the control characters (`\p{Cc}`: C0, DEL and C1) written out: a `\p{…}` makes V8 ask ICU for the
    // property's set at every cold start that loads this module (see decimalDigitClass); a test holds the two equal.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what this replaces
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .trim();
  if (clean.length <= maxChars) return clean;
  return `${truncateChars(clean, maxChars - CUT_MARK.length)}${CUT_MARK}`;
}
