/**
 * The run's card in Slack: one message per run, edited in place — started (what is investigated, who asked or which
 * alarm), progress (rounds, checks, which evidence is being read), then the result (the judged conclusion and the
 * first steps of its action plan, the honest "no conclusion", or the failure in words) with the rating buttons and
 * every rating; the details (how it started, the whole plan, each finding's evidence, past incidents as leads,
 * limitations, the run's link) go as a reply in the card's thread. No run or session id in the card's header. NOTE: built from delivery's own Block Kit builder (`buildSlackMessage`), so the
 * escaping (`&`, `<`, `>`; `verbatim` mrkdwn), the AI notice and the limits are the incoming webhook's exactly.
 */
import type { ProgressSnapshot, RunFeedback, StoredRun } from '@diagnosis/core';
import { fitText } from '../delivery/fit-text.ts';
import type { RunOrigin } from '../delivery/result-words.ts';
import type { RunFinishedDetail } from '../delivery/run-finished-event.ts';
import {
  AI_NOTICE,
  askedBy,
  buildSlackResult,
  escapeSlack,
  SLACK_LIMITS,
  type SlackBlock,
  type SlackTextObject,
} from '../delivery/slack-message.ts';
import { buildRatingLine } from './card-ratings.ts';
import type { SlackCard } from './card-store.ts';
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
  /** Who asked (a Slack user) or which alarm. */
  origin: RunOrigin;
  /** A question asked in a card's thread. */
  followUp: boolean;
}

/**
 * Who asked, or which alarm, as the card says it: the run's trigger when it has one (its source, title and incident
 * key), the Slack user the card recorded for a run started from Slack, else the alarm's source the card was claimed with.
 */
export function originOfCard(
  card: Pick<SlackCard, 'startedBy' | 'requesterId'>,
  run: Pick<StoredRun, 'trigger'> | null,
): RunOrigin {
  if (run?.trigger) {
    const { source, incidentKey, title } = run.trigger;
    return { kind: 'alarm', source, incidentKey, title };
  }
  if (card.startedBy === 'Slack') return { kind: 'slack', userId: card.requesterId };
  // NOTE: a triggered run's card before its run is read: the source it was claimed with.
  return { kind: 'alarm', source: card.startedBy, incidentKey: '', title: null };
}

const mrkdwn = (text: string): SlackTextObject => ({ type: 'mrkdwn', text, verbatim: true });
const header = (text: string): SlackBlock => ({
  type: 'header',
  text: { type: 'plain_text', text: fitText(text, SLACK_LIMITS.headerText).text },
});
const notice = (text: string): SlackBlock => ({
  type: 'context',
  elements: [mrkdwn(`:warning: *${AI_NOTICE}* ${text}`)],
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
      notice(askedBy(subject.origin)),
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

/** What the card knows of its run beyond the result event: who asked, and every rating the run has. */
export interface CardContext {
  origin: RunOrigin;
  /** The run's ratings from the one rating store (every path: API, command line, Slack). */
  ratings: readonly RunFeedback[];
}

const RATING_LABELS: Record<string, string> = {
  rate_correct: 'Correct',
  rate_partially_correct: 'Partially correct',
  rate_wrong: 'Wrong',
  rate_unhelpful: 'Unhelpful',
};

/**
 * The card once the run ended: the result's summary (`buildSlackResult`: the status in words, the notice with who
 * asked and the run's link, the question, the conclusion or "no conclusion" or the failure, the first steps of the
 * action plan), then the rating buttons (each carries the run id as its value, which the server only compares with
 * the card's own run), and the rating line: each rater's verdict and who gave it. The rest goes to the thread.
 */
export function buildResultCard(detail: RunFinishedDetail, context: CardContext): CardMessage {
  const result = buildSlackResult(detail, context.origin, 'thread');
  const blocks: CardBlock[] = [...result.summary];
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
  blocks.push({ type: 'context', elements: [mrkdwn(buildRatingLine(context.ratings))] });
  return { text: result.text, blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

/**
 * The thread reply with the details: how the run started (Slack, an alarm, the API), the whole action plan,
 * recommendations, findings with their evidence, past incidents as leads, limitations, usage and the run's link.
 */
export function buildDetailsReply(detail: RunFinishedDetail, origin: RunOrigin): CardMessage {
  const { details } = buildSlackResult(detail, origin, 'thread');
  return {
    text: fitText(`Details of the diagnosis — ${AI_NOTICE}`, SLACK_LIMITS.fallbackText, escapeSlack).text,
    blocks: [notice('The details of this diagnosis'), ...details].slice(0, SLACK_LIMITS.blocks),
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
