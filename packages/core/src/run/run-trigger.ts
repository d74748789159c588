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
  /** The alarm, alert group or incident title, at most 256 characters. */
  title: string;
  /** When the incident began (the alarm's state change, the earliest `startsAt`, `occurred_at`), UTC ISO. */
  startedAt: string;
}

/** Caps of the texts a sender chose. */
export const TRIGGER_TEXT_CAPS = Object.freeze({ incidentKey: 1_024, eventId: 256, title: 256 });
