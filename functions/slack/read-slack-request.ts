/**
 * What a verified Slack request asks for, decided from its body alone (no I/O): the Events API's `url_verification`,
 * an app mention, a `/diagnose` command, a rating button, the rating modal's submission. NOTE: call only after
 * `verifySlackRequest` accepted the raw bytes. The enterprise is never read here: the request's team and channel must
 * be the app's (`enterpriseOfChannel`), or the request is ignored and answered with nothing.
 */
import { FEEDBACK_VERDICTS, type FeedbackVerdict } from '@diagnosis/core';
import * as v from 'valibot';
import { enterpriseOfChannel, type ResolvedSlackApp } from './slack-settings.ts';
import { SLACK_MAX_TEXT_CHARS, type SlackWork, slackWorkSchema } from './slack-work.ts';

export const SLACK_REQUEST_KINDS = Object.freeze(['events', 'interactivity', 'commands'] as const);
export type SlackRequestKind = (typeof SLACK_REQUEST_KINDS)[number];

/** Why a verified request starts nothing (answered 200 with an empty body, counted by code). */
const SLACK_IGNORED = Object.freeze([
  'UNMAPPED_CHANNEL',
  'BOT_MESSAGE',
  'NOT_A_MENTION',
  'UNSUPPORTED_EVENT',
  'UNSUPPORTED_ACTION',
  'INVALID_FIELDS',
] as const);
type SlackIgnored = (typeof SLACK_IGNORED)[number];

/** The rating buttons' action ids → verdicts; `rate_note` opens the modal for a note or the true cause. */
export const RATING_ACTIONS: Readonly<Record<string, FeedbackVerdict>> = Object.freeze({
  rate_correct: 'CORRECT',
  rate_partially_correct: 'PARTIALLY_CORRECT',
  rate_wrong: 'WRONG',
  rate_unhelpful: 'UNHELPFUL',
});
export const RATE_WITH_NOTE_ACTION = 'rate_note';
/** The rating modal's `callback_id`. */
export const RATING_MODAL_ID = 'rating_modal';

export type SlackDecision =
  | { kind: 'challenge'; challenge: string }
  | { kind: 'ignored'; code: SlackIgnored }
  | { kind: 'malformed' }
  | { kind: 'work'; work: SlackWork; eventId: string | null }
  /** A `rate_note` click: the acknowledging function opens the modal at once (its `trigger_id` lives 3 s). */
  | { kind: 'open-modal'; triggerId: string; channelId: string; messageTs: string; claimedRunId: string };

const challengeSchema = v.object({
  type: v.literal('url_verification'),
  challenge: v.pipe(v.string(), v.maxLength(200)),
});

const eventCallbackSchema = v.object({
  type: v.literal('event_callback'),
  team_id: v.string(),
  event_id: v.string(),
  event: v.object({
    type: v.string(),
    user: v.optional(v.string()),
    text: v.optional(v.string()),
    ts: v.optional(v.string()),
    thread_ts: v.optional(v.string()),
    channel: v.optional(v.string()),
    bot_id: v.optional(v.unknown()),
    subtype: v.optional(v.unknown()),
    app_id: v.optional(v.unknown()),
  }),
});

const blockActionsSchema = v.object({
  type: v.literal('block_actions'),
  team: v.object({ id: v.string() }),
  user: v.object({ id: v.string(), team_id: v.optional(v.string()) }),
  channel: v.object({ id: v.string() }),
  container: v.object({ message_ts: v.string() }),
  trigger_id: v.string(),
  actions: v.pipe(
    v.array(v.object({ action_id: v.string(), value: v.optional(v.string()) })),
    v.minLength(1),
    v.maxLength(1),
  ),
});

const plainValue = v.optional(v.object({ value: v.nullish(v.string()) }));
const viewSubmissionSchema = v.object({
  type: v.literal('view_submission'),
  team: v.object({ id: v.string() }),
  user: v.object({ id: v.string(), team_id: v.optional(v.string()) }),
  view: v.object({
    callback_id: v.literal(RATING_MODAL_ID),
    private_metadata: v.pipe(v.string(), v.maxLength(3_000)),
    state: v.object({
      values: v.object({
        verdict: v.object({ verdict: v.object({ selected_option: v.nullish(v.object({ value: v.string() })) }) }),
        root_cause: v.optional(v.object({ root_cause: plainValue })),
        note: v.optional(v.object({ note: plainValue })),
      }),
    }),
  }),
});
const modalMetadataSchema = v.strictObject({ channelId: v.string(), messageTs: v.string(), runId: v.string() });

const commandSchema = v.object({
  team_id: v.string(),
  channel_id: v.string(),
  user_id: v.string(),
  command: v.literal('/diagnose'),
  text: v.string(),
  trigger_id: v.string(),
});

/** A mention's question: the leading mentions of the app removed, spaces trimmed, bounded. */
function questionOfMention(text: string): string {
  return text
    .replace(/^(\s*<@[UW][A-Z0-9]{2,20}>)+/, '')
    .trim()
    .slice(0, SLACK_MAX_TEXT_CHARS);
}

const work = (candidate: unknown, eventId: string | null = null): SlackDecision => {
  const parsed = v.safeParse(slackWorkSchema, candidate);
  return parsed.success ? { kind: 'work', work: parsed.output, eventId } : { kind: 'ignored', code: 'INVALID_FIELDS' };
};

/** Decides one verified request of `kind` for `app`. */
export function readSlackRequest(kind: SlackRequestKind, app: ResolvedSlackApp, raw: Buffer): SlackDecision {
  if (kind === 'events') return readEvent(app, raw);
  const form = new URLSearchParams(raw.toString('utf8'));
  if (kind === 'commands') return readCommand(app, Object.fromEntries(form));
  const payload = form.get('payload');
  if (payload === null || form.getAll('payload').length !== 1) return { kind: 'malformed' };
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return { kind: 'malformed' };
  }
  return readInteraction(app, json);
}

function readEvent(app: ResolvedSlackApp, raw: Buffer): SlackDecision {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    return { kind: 'malformed' };
  }
  const challenge = v.safeParse(challengeSchema, json);
  if (challenge.success) return { kind: 'challenge', challenge: challenge.output.challenge };
  const callback = v.safeParse(eventCallbackSchema, json);
  if (!callback.success) return { kind: 'ignored', code: 'UNSUPPORTED_EVENT' };
  const { event, team_id: teamId, event_id: eventId } = callback.output;
  // NOTE: the bot's own messages and other bots' (a bot_id, or any subtype: bot_message, message_changed, …).
  if (event.bot_id !== undefined || event.subtype !== undefined) return { kind: 'ignored', code: 'BOT_MESSAGE' };
  // Plain messages (people talking to each other, in a thread or not) are not asking the app anything.
  if (event.type !== 'app_mention') return { kind: 'ignored', code: 'NOT_A_MENTION' };
  if (enterpriseOfChannel(app, teamId, event.channel) === null) return { kind: 'ignored', code: 'UNMAPPED_CHANNEL' };
  return work(
    {
      kind: 'mention',
      appId: app.id,
      teamId,
      channelId: event.channel,
      userId: event.user,
      eventId,
      ts: event.ts,
      threadTs: event.thread_ts ?? null,
      text: questionOfMention(event.text ?? ''),
    },
    eventId,
  );
}

function readCommand(app: ResolvedSlackApp, form: Record<string, string>): SlackDecision {
  const parsed = v.safeParse(commandSchema, form);
  if (!parsed.success) return { kind: 'ignored', code: 'INVALID_FIELDS' };
  const command = parsed.output;
  if (enterpriseOfChannel(app, command.team_id, command.channel_id) === null) {
    return { kind: 'ignored', code: 'UNMAPPED_CHANNEL' };
  }
  return work({
    kind: 'command',
    appId: app.id,
    teamId: command.team_id,
    channelId: command.channel_id,
    userId: command.user_id,
    invocationId: command.trigger_id,
    text: command.text.trim().slice(0, SLACK_MAX_TEXT_CHARS),
  });
}

function readInteraction(app: ResolvedSlackApp, json: unknown): SlackDecision {
  const actions = v.safeParse(blockActionsSchema, json);
  if (actions.success) {
    const payload = actions.output;
    if (enterpriseOfChannel(app, payload.team.id, payload.channel.id) === null) {
      return { kind: 'ignored', code: 'UNMAPPED_CHANNEL' };
    }
    const [action] = payload.actions;
    if (action === undefined) return { kind: 'ignored', code: 'UNSUPPORTED_ACTION' };
    const claimedRunId = action.value ?? '';
    if (action.action_id === RATE_WITH_NOTE_ACTION) {
      return {
        kind: 'open-modal',
        triggerId: payload.trigger_id,
        channelId: payload.channel.id,
        messageTs: payload.container.message_ts,
        claimedRunId,
      };
    }
    const verdict = Object.hasOwn(RATING_ACTIONS, action.action_id) ? RATING_ACTIONS[action.action_id] : undefined;
    if (verdict === undefined) return { kind: 'ignored', code: 'UNSUPPORTED_ACTION' };
    return work({
      kind: 'rating',
      appId: app.id,
      teamId: payload.team.id,
      channelId: payload.channel.id,
      messageTs: payload.container.message_ts,
      userId: payload.user.id,
      ...(payload.user.team_id === undefined ? {} : { userTeamId: payload.user.team_id }),
      verdict,
      claimedRunId,
      rootCause: null,
      note: null,
    });
  }
  const submission = v.safeParse(viewSubmissionSchema, json);
  if (!submission.success) return { kind: 'ignored', code: 'UNSUPPORTED_ACTION' };
  const payload = submission.output;
  let metadata: unknown;
  try {
    metadata = JSON.parse(payload.view.private_metadata);
  } catch {
    return { kind: 'ignored', code: 'INVALID_FIELDS' };
  }
  const card = v.safeParse(modalMetadataSchema, metadata);
  if (!card.success) return { kind: 'ignored', code: 'INVALID_FIELDS' };
  if (enterpriseOfChannel(app, payload.team.id, card.output.channelId) === null) {
    return { kind: 'ignored', code: 'UNMAPPED_CHANNEL' };
  }
  const values = payload.view.state.values;
  const verdict = values.verdict.verdict.selected_option?.value;
  if (!(FEEDBACK_VERDICTS as readonly string[]).includes(verdict ?? ''))
    return { kind: 'ignored', code: 'INVALID_FIELDS' };
  const textOf = (value: string | null | undefined) =>
    value === null || value === undefined || value.trim() === '' ? null : value;
  return work({
    kind: 'rating',
    appId: app.id,
    teamId: payload.team.id,
    channelId: card.output.channelId,
    messageTs: card.output.messageTs,
    userId: payload.user.id,
    ...(payload.user.team_id === undefined ? {} : { userTeamId: payload.user.team_id }),
    verdict,
    claimedRunId: card.output.runId,
    rootCause: textOf(values.root_cause?.root_cause?.value),
    note: textOf(values.note?.note?.value),
  });
}
