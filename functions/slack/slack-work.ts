/**
 * The work a verified Slack request hands to the SlackWork queue, and how the worker reads it back. NOTE: a message
 * carries Slack's ids as Slack sent them and nothing of ours: no enterprise, run or session. The worker finds those
 * again from the app's channel mapping and the card items (see `slack-conversation.ts`), so a message can never
 * name a tenant, even if something else put one on the queue.
 */
import { FEEDBACK_LIMITS, FEEDBACK_VERDICTS, RUN_ID_PATTERN } from '@diagnosis/core';
import * as v from 'valibot';
import { SLACK_APP_ID_PATTERN, SLACK_CHANNEL_ID_PATTERN, SLACK_TEAM_ID_PATTERN } from './slack-settings.ts';

/** A Slack message timestamp (`1712345678.123456`): a message's id within its channel. */
const SLACK_TS_PATTERN = /^[0-9]{9,11}\.[0-9]{6}$/;
/** A Slack user id (`U…`, `W…` for Enterprise Grid). */
export const SLACK_USER_ID_PATTERN = /^[UW][A-Z0-9]{2,20}$/;
/** An Events API event id (`Ev…`). */
const SLACK_EVENT_ID_PATTERN = /^Ev[A-Za-z0-9]{4,40}$/;
/** The longest text of a mention or a slash command a run is started with (the query's own bound applies too). */
export const SLACK_MAX_TEXT_CHARS = 4_000;

const appId = v.pipe(v.string(), v.regex(SLACK_APP_ID_PATTERN));
const teamId = v.pipe(v.string(), v.regex(SLACK_TEAM_ID_PATTERN));
const channelId = v.pipe(v.string(), v.regex(SLACK_CHANNEL_ID_PATTERN));
const ts = v.pipe(v.string(), v.regex(SLACK_TS_PATTERN));
const userId = v.pipe(v.string(), v.regex(SLACK_USER_ID_PATTERN));
const text = v.pipe(v.string(), v.maxLength(SLACK_MAX_TEXT_CHARS));

export const slackWorkSchema = v.variant('kind', [
  /** An app mention: in a card's thread, a follow-up; elsewhere in a mapped channel, a new run. */
  v.strictObject({
    kind: v.literal('mention'),
    appId,
    teamId,
    channelId,
    userId,
    eventId: v.pipe(v.string(), v.regex(SLACK_EVENT_ID_PATTERN)),
    ts,
    threadTs: v.nullable(ts),
    text,
  }),
  /** `/diagnose <question>`: a new run for the channel's enterprise. */
  v.strictObject({
    kind: v.literal('command'),
    appId,
    teamId,
    channelId,
    userId,
    /** The command's `trigger_id`: Slack's id of this invocation, used once. */
    invocationId: v.pipe(v.string(), v.regex(/^[0-9A-Za-z.]{8,100}$/)),
    text,
  }),
  /** A rating: a button on a result card, or the rating modal's submission. */
  v.strictObject({
    kind: v.literal('rating'),
    appId,
    teamId,
    channelId,
    /** The card the button was on (or the modal was opened from). */
    messageTs: ts,
    userId,
    /** The user's own workspace (a Slack Connect channel's guest is not of the app's `teamId`); absent: the app's. */
    userTeamId: v.optional(teamId),
    verdict: v.picklist(FEEDBACK_VERDICTS),
    /** What the button or modal named as the run: must be the card's own run, or nothing happens. */
    claimedRunId: v.pipe(v.string(), v.maxLength(200)),
    rootCause: v.nullable(v.pipe(v.string(), v.maxLength(FEEDBACK_LIMITS.rootCauseChars))),
    note: v.nullable(v.pipe(v.string(), v.maxLength(FEEDBACK_LIMITS.noteChars))),
  }),
  /**
   * Bring a run's card up to date (a step a 429, a failure or the channel's pace deferred, put back with a delay).
   * Only ever posts or re-draws the card the run has (or, for a triggered run, its alert channel's), from the
   * stored run.
   */
  v.strictObject({
    kind: v.literal('card'),
    runId: v.pipe(v.string(), v.regex(RUN_ID_PATTERN)),
    /** How many times the card's pending step was tried (bounded: `MAX_CARD_ATTEMPTS`). */
    attempt: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0), v.maxValue(100))),
    /** The channel post slot this work reserved (ms); a forged one can at most meet Slack's own 429. */
    slotAt: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  }),
]);

export type SlackWork = v.InferOutput<typeof slackWorkSchema>;

/** A queue message's work, or null when it is not one (dropped, never retried). */
export function parseSlackWork(body: string): SlackWork | null {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  const parsed = v.safeParse(slackWorkSchema, json);
  return parsed.success ? parsed.output : null;
}
