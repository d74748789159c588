/**
 * The card's rating line: every rating of the run, from every path that records one (the API's feedback route, the
 * command line, Slack's buttons and modal: the one rating store), each rater's latest verdict, grouped by verdict and
 * naming who gave it. NOTE: a rater is named by what the store keeps, never more: a Slack user as a mention Slack
 * resolves itself (`<@U…>`), an IAM caller by the last part of its ARN (no account id), a command-line user by the
 * name it ran as; anything else is "an API caller". Every name we did not write is escaped and bounded.
 */
import type { FeedbackVerdict, RunFeedback } from '@diagnosis/core';
import { fitText } from '../delivery/fit-text.ts';
import { escapeSlack } from '../delivery/slack-message.ts';

/** Raters named one by one; the rest are counted. */
const NAMED_RATERS = 20;
const NAME_CHARS = 64;

const VERDICT_WORDS: Record<FeedbackVerdict, string> = {
  CORRECT: 'Correct',
  PARTIALLY_CORRECT: 'Partially correct',
  WRONG: 'Wrong',
  UNHELPFUL: 'Unhelpful',
};
const VERDICT_ORDER = Object.keys(VERDICT_WORDS) as FeedbackVerdict[];

const SLACK_RATER = /^slack:[A-Z0-9]{2,20}:([UW][A-Z0-9]{2,20})$/;
const IAM_RATER = /^arn:aws[a-z-]*:(?:iam|sts)::[0-9]{12}:[A-Za-z-]+\/(.+)$/;

/** Who gave a rating, as the card names them (mrkdwn: a mention we wrote, or escaped text with its path). */
function raterName(caller: string): string {
  const slack = SLACK_RATER.exec(caller);
  if (slack !== null) return `<@${slack[1]}>`;
  const name = (text: string) => fitText(text, NAME_CHARS, escapeSlack).text;
  if (caller.startsWith('local:') && caller.length > 'local:'.length) {
    return `${name(caller.slice('local:'.length))} (command line)`;
  }
  const iam = IAM_RATER.exec(caller);
  const last = iam?.[1]?.split('/').at(-1);
  if (last !== undefined && last !== '') return `${name(last)} (API)`;
  return 'an API caller';
}

/** Each rater's latest rating of the run (a re-rating replaces the earlier one on the card; the store keeps both). */
function latestRatings(entries: readonly RunFeedback[]): RunFeedback[] {
  const byCaller = new Map<string, RunFeedback>();
  for (const entry of entries) {
    const seen = byCaller.get(entry.callerKey);
    if (seen === undefined || entry.sequence > seen.sequence) byCaller.set(entry.callerKey, entry);
  }
  return [...byCaller.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

/** The rating line (mrkdwn): "Rated *Correct* by <@U…>, alice (API) · *Wrong* by …", or "Not rated yet". */
export function buildRatingLine(entries: readonly RunFeedback[]): string {
  const latest = latestRatings(entries);
  if (latest.length === 0)
    return 'Not rated yet. Details in the thread; mention the app in the thread to ask a follow-up.';
  let named = 0;
  const groups: string[] = [];
  for (const verdict of VERDICT_ORDER) {
    const raters = latest.filter((entry) => entry.verdict === verdict);
    if (raters.length === 0) continue;
    const shown = raters.slice(0, Math.max(0, NAMED_RATERS - named)).map((entry) => raterName(entry.caller));
    named += shown.length;
    const others = raters.length - shown.length;
    const who = [...shown, ...(others > 0 ? [`${others} more`] : [])].join(', ');
    groups.push(`*${VERDICT_WORDS[verdict]}* by ${who}`);
  }
  return `Rated ${groups.join(' · ')} · thank you. Details in the thread.`;
}
