/**
 * The run's card in Slack: one message per run, edited in place — started (what is investigated, for whom), progress
 * (rounds, checks, which evidence is being read), then the result (the judged conclusion, the honest "no conclusion",
 * or the failure in words) with the rating buttons; the details (each finding's evidence, limitations, the run's link)
 * go as a reply in the card's thread. NOTE: built from delivery's own Block Kit builder (`buildSlackMessage`), so the
 * escaping (`&`, `<`, `>`; `verbatim` mrkdwn), the AI notice and the limits are the incoming webhook's exactly.
 */
import type { ProgressSnapshot } from '@diagnosis/core';
import { fitText } from '../delivery/fit-text.ts';
import type { RunFinishedDetail } from '../delivery/run-finished-event.ts';
import {
  AI_NOTICE,
  buildSlackMessage,
  escapeSlack,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackTextObject,
} from '../delivery/slack-message.ts';
import { RATE_WITH_NOTE_ACTION, RATING_ACTIONS, RATING_MODAL_ID } from './read-slack-request.ts';

type ButtonElement = {
  type: 'button';
  action_id: string;
  text: { type: 'plain_text'; text: string };
  value: string;
  style?: 'primary' | 'danger';
};
type CardBlock = SlackBlock | { type: 'actions'; block_id: string; elements: ButtonElement[] };
export interface CardMessage {
  text: string;
  blocks: CardBlock[];
}

/** What the card says of the run before it ends. */
export interface CardSubject {
  runId: string;
  enterpriseId: string;
  query: string;
  /** `cloudwatch`, `pagerduty`, `slack` (a mention or `/diagnose`), …; `followUp` for a question in a thread. */
  startedBy: string;
  followUp: boolean;
}

const mrkdwn = (text: string): SlackTextObject => ({ type: 'mrkdwn', text, verbatim: true });
const header = (text: string): SlackBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: fitText(text, SLACK_LIMITS.headerText).text },
});
const notice = (runId: string, extra: string): SlackBlock => ({
  type: 'context',
  elements: [mrkdwn(`:warning: *${AI_NOTICE}* Run \`${escapeSlack(runId)}\`${extra}`)],
});
const question = (query: string): SlackBlock => {
  const head = '*Investigating*\n';
  return {
    type: 'section',
    text: mrkdwn(head + fitText(query, SLACK_LIMITS.sectionText - head.length, escapeSlack).text),
  };
};

/** The card as the run starts. */
export function buildStartedCard(subject: CardSubject): CardMessage {
  const what = subject.followUp ? 'Follow-up question' : 'Diagnosing';
  return {
    text: fitText(`${what} for ${subject.enterpriseId} — ${AI_NOTICE}`, SLACK_LIMITS.fallbackText).text,
    blocks: [
      header(`${what} · ${subject.enterpriseId}`),
      notice(subject.runId, ` · started by ${escapeSlack(subject.startedBy)}`),
      question(subject.query),
      { type: 'context', elements: [mrkdwn('Queued: waiting for the first round…')] },
    ],
  };
}

/** The card while the run works: its rounds, checks and the evidence being read (tool names, ours). */
export function buildProgressCard(subject: CardSubject, progress: ProgressSnapshot): CardMessage {
  const started = buildStartedCard(subject);
  const recent = progress.checks.slice(-3).map((check) => check.toolName);
  const reading = recent.length === 0 ? 'thinking' : `reading ${[...new Set(recent)].join(', ')}`;
  const line = `Round ${progress.modelCalls} · ${progress.toolCalls} check${progress.toolCalls === 1 ? '' : 's'} · ${reading}`;
  return {
    text: started.text,
    blocks: [...started.blocks.slice(0, 3), { type: 'context', elements: [mrkdwn(escapeSlack(line))] }],
  };
}

/** How the card shows that it was rated: counts by verdict, never who (the rater is kept in the store). */
export interface CardRatings {
  count: number;
}

const RATING_LABELS: Record<string, string> = {
  rate_correct: 'Correct',
  rate_partially_correct: 'Partially correct',
  rate_wrong: 'Wrong',
  rate_unhelpful: 'Unhelpful',
};

/**
 * The card once the run ended: the result's header, notice, question and conclusion (or "no conclusion", or the
 * failure) from `buildSlackMessage`, then the rating buttons (each carries the run id as its value, which the server
 * only compares with the card's own run), and a line once rated. The rest of the result goes to the thread.
 */
export function buildResultCard(detail: RunFinishedDetail, ratings: CardRatings): CardMessage {
  const message = buildSlackMessage(detail);
  const divider = message.blocks.findIndex((block) => block.type === 'divider');
  const summary = divider === -1 ? message.blocks : message.blocks.slice(0, divider);
  const blocks: CardBlock[] = [...summary];
  // NOTE: only an ended run can be rated (recordFeedback refuses others); a cancelled run has nothing to rate.
  if (detail.status !== 'CANCELLED') {
    blocks.push({
      type: 'actions',
      block_id: 'rating',
      elements: [
        ...Object.keys(RATING_ACTIONS).map(
          (actionId): ButtonElement => ({
            type: 'button',
            action_id: actionId,
            text: { type: 'plain_text', text: RATING_LABELS[actionId] ?? actionId },
            value: detail.runId,
          }),
        ),
        {
          type: 'button',
          action_id: RATE_WITH_NOTE_ACTION,
          text: { type: 'plain_text', text: 'Rate with a note…' },
          value: detail.runId,
        },
      ],
    });
  }
  blocks.push({
    type: 'context',
    elements: [
      mrkdwn(
        ratings.count === 0
          ? 'Not rated yet. Details in the thread; mention the app in the thread to ask a follow-up.'
          : `Rated ${ratings.count} time${ratings.count === 1 ? '' : 's'} · thank you. Details in the thread.`,
      ),
    ],
  });
  return { text: message.text, blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

/** The thread reply with the details: findings with their evidence, limitations, usage and the run's link. */
export function buildDetailsReply(detail: RunFinishedDetail): CardMessage | null {
  const message = buildSlackMessage(detail);
  const divider = message.blocks.findIndex((block) => block.type === 'divider');
  if (divider === -1) return null;
  const rest = message.blocks.slice(divider + 1).filter((block) => block.type !== 'divider');
  if (rest.length === 0) return null;
  return {
    text: fitText(`Details of run ${detail.runId} — ${AI_NOTICE}`, SLACK_LIMITS.fallbackText, escapeSlack).text,
    blocks: [notice(detail.runId, ' · details'), ...rest].slice(0, SLACK_LIMITS.blocks),
  };
}

/** A short answer in words in a thread or channel (a refusal, an unavailable follow-up): our text only. */
export function buildNoticeMessage(text: string): CardMessage {
  return { text, blocks: [{ type: 'section', text: mrkdwn(escapeSlack(text)) }] };
}

/** The rating modal (`views.open`): a verdict, an optional true cause and note; the card it rates as metadata. */
export function buildRatingModal(card: { channelId: string; messageTs: string; runId: string }) {
  const option = (value: string, text: string) => ({ text: { type: 'plain_text', text }, value });
  return {
    type: 'modal',
    callback_id: RATING_MODAL_ID,
    title: { type: 'plain_text', text: 'Rate this diagnosis' },
    submit: { type: 'plain_text', text: 'Rate' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(card),
    blocks: [
      {
        type: 'input',
        block_id: 'verdict',
        label: { type: 'plain_text', text: 'Verdict' },
        element: {
          type: 'static_select',
          action_id: 'verdict',
          options: [
            option('CORRECT', 'Correct'),
            option('PARTIALLY_CORRECT', 'Partially correct'),
            option('WRONG', 'Wrong'),
            option('UNHELPFUL', 'Unhelpful'),
          ],
        },
      },
      {
        type: 'input',
        block_id: 'root_cause',
        optional: true,
        label: { type: 'plain_text', text: 'The true cause, if you know it' },
        element: { type: 'plain_text_input', action_id: 'root_cause', max_length: 1_000 },
      },
      {
        type: 'input',
        block_id: 'note',
        optional: true,
        label: { type: 'plain_text', text: 'Note' },
        element: { type: 'plain_text_input', action_id: 'note', multiline: true, max_length: 2_000 },
      },
    ],
  };
}
