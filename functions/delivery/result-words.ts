/**
 * The words every destination uses for a result, so the Slack card, the incoming-webhook message, the Teams card, the
 * SNS email and the PagerDuty note say the same thing: the status as a responder says it, who or what started the run,
 * how many steps of the plan come first, counts with separators, and how a past incident is named (a lead, never
 * evidence). Plain text: each destination escapes it its own way.
 */
import type { ResultPastIncident, RunFinishedDetail } from './run-finished-event.ts';

/**
 * The status in the words a responder uses (the header of every result's message and card). NOTE: FALLBACK is the
 * release's honest "no conclusion": what the run found did not carry a verified one.
 */
export const RESPONDER_STATUS: Readonly<Record<RunFinishedDetail['status'], string>> = Object.freeze({
  PUBLISHED: 'Diagnosed',
  FALLBACK: 'No conclusion — evidence insufficient',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
});

/** The first steps of the action plan a result shows before everything else; the rest follow (or the thread). */
export const FIRST_PLAN_STEPS = 3;

/**
 * Who or what started the run: a Slack user (the card knows which), an alarm or a webhook (the run's trigger), or a
 * person through the API, the command line or Slack (what a result event alone can tell of a run without a trigger).
 */
export type RunOrigin =
  | { kind: 'slack'; userId: string | null }
  | { kind: 'alarm'; source: string; incidentKey: string; title: string | null }
  | { kind: 'caller' };

/** The origin a result event tells by itself: its trigger, or a person's question. */
export function originOf(detail: Pick<RunFinishedDetail, 'trigger'>): RunOrigin {
  return detail.trigger === null
    ? { kind: 'caller' }
    : { kind: 'alarm', source: detail.trigger.source, incidentKey: detail.trigger.incidentKey, title: null };
}

/** How a run without a trigger started, when nothing else tells more (a result event's destinations). */
export const CALLER_ORIGIN = 'Started by a person through the API, the command line or Slack';

/** A count with thousands separators (`38,230`), the same on every machine (no locale). */
function formatCount(value: number): string {
  const [whole = '0', fraction] = String(value).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** `1 check`, `38,230 tokens`. */
export const plural = (count: number, word: string) => `${formatCount(count)} ${word}${count === 1 ? '' : 's'}`;

/** The headline: the status in a responder's words, a follow-up named as one, the enterprise. No run or session id. */
export function resultHeadline(detail: Pick<RunFinishedDetail, 'status' | 'followUp' | 'enterpriseId'>): string {
  return `${detail.followUp ? 'Follow-up · ' : ''}${RESPONDER_STATUS[detail.status]} · ${detail.enterpriseId}`;
}

/** The usage line: model calls, checks, tokens with separators and the cost when priced. */
export function usageLine(detail: Pick<RunFinishedDetail, 'usage' | 'cost'>): string {
  if (detail.usage === null) return 'no model calls';
  const cost = detail.cost === null ? '' : ` · $${detail.cost.amount.toFixed(4)}`;
  return `${plural(detail.usage.modelCalls, 'model call')} · ${plural(detail.usage.toolCalls, 'check')} · ${plural(detail.usage.totalTokens, 'token')}${cost}`;
}

/** The heading of past incidents: leads the run looked at, never evidence. */
export const SEEN_BEFORE_LABEL = 'Seen before — a lead the run looked at, not evidence';

/** A past incident in words: its day (only when the stored text starts with one) and its remembered rating. */
export function describePastIncident(past: Pick<ResultPastIncident, 'occurredAt' | 'rating'>): string {
  // NOTE: the day alone, and only when it is one (the stored text is bounded, not trusted to be a date).
  const day = /^[0-9]{4}-[0-9]{2}-[0-9]{2}/.exec(past.occurredAt)?.[0] ?? 'an unknown day';
  return `A past incident of ${day}, rated ${past.rating === 'CORRECT' ? 'correct' : 'partially correct'}`;
}

/** How the run started, in plain text (Teams, email, PagerDuty; Slack writes its own with a mention). */
export function describeOriginText(origin: RunOrigin, followUp: boolean): string {
  const follow = followUp ? ' · it answers a follow-up question in its conversation' : '';
  if (origin.kind === 'slack') return `Started from Slack${follow}`;
  if (origin.kind === 'alarm') return `Triggered by ${origin.source} · incident ${origin.incidentKey}${follow}`;
  return `${CALLER_ORIGIN}${follow}`;
}

/** What the judge removed, counted (the claims themselves are never shown); null when it removed nothing. */
export function removedClaimsLine(count: number): string | null {
  if (count === 0) return null;
  const what = count === 1 ? '1 claim was' : `${formatCount(count)} claims were`;
  return `${what} removed: the judge did not find ${count === 1 ? 'it' : 'them'} supported by the evidence (the run's audit keeps what it said).`;
}
