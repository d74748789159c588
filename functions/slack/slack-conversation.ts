/**
 * The SlackWork queue's work: a mention or `/diagnose` starts a run and posts its card; a mention in a card's thread
 * starts a follow-up in the card's session (`continueSession`: the previous published result is its previous turn);
 * a rating is recorded by the rating use case the API's feedback route runs too (functions/ratings/); and the card
 * follows its run (`advanceCard`, the card's state machine).
 * NOTE: the tenant is bound here, on the server, from configuration and our own records only: the enterprise is the
 * app's channel mapping's; the run a click or a thread reply means is the card found by (app, channel, message ts),
 * whose enterprise must be the channel's and whose run must be the one the button names — otherwise nothing happens.
 */
import { createHash } from 'node:crypto';
import {
  DiagnosisError,
  DiagnosisTenantBusyError,
  parseFeedbackInput,
  type StartDiagnosisDeps,
  startDiagnosis,
} from '@diagnosis/core';
import type { Rating } from '../ratings/rating.ts';
import { advanceCard, type CallBudget, type CardDeps, type CardOutcome, startCard } from './advance-card.ts';
import { buildNoticeMessage } from './run-card.ts';
import { enterpriseOfChannel, type ResolvedSlackApp } from './slack-settings.ts';
import type { SlackWork } from './slack-work.ts';

export interface ConversationDeps extends CardDeps {
  start: StartDiagnosisDeps;
  /** The rating use case, as the API's feedback route records ratings (the run's memory included). */
  rate: Rating;
}

export type ConversationOutcome =
  | CardOutcome
  | { outcome: 'STARTED'; runId: string; followUp: boolean; card: CardOutcome }
  | { outcome: 'REFUSED'; code: string }
  | { outcome: 'RATED'; runId: string; created: boolean; card: CardOutcome | null }
  /** Slack said 429 to a notice: the same work comes back after this many seconds. */
  | { outcome: 'RETRY'; delaySeconds: number };

const ignored = (code: string): ConversationOutcome => ({ outcome: 'IGNORED', code });

/** A run id bound to the Slack event (or command invocation) that asked for it: a retried event is the same run. */
export function slackRunId(appId: string, slackId: string): string {
  return `slack-${createHash('sha256').update(`${appId}:${slackId}`).digest('hex').slice(0, 40)}`;
}

/**
 * The rater's identity as stored with a rating: the Slack user's own workspace and the user, never a name. NOTE: in
 * a Slack Connect channel the user's workspace is not the app's; the tenant is still the app's channel mapping's.
 */
const slackRater = (userTeamId: string, userId: string) => `slack:${userTeamId}:${userId}`;

export async function handleSlackWork(
  work: SlackWork,
  deps: ConversationDeps,
  budget: CallBudget,
): Promise<ConversationOutcome> {
  if (work.kind === 'card') {
    return advanceCard(work.runId, deps, budget, { attempt: work.attempt ?? 0, slotAt: work.slotAt ?? null });
  }
  const app = deps.apps.get(work.appId);
  if (app === undefined) return ignored('UNKNOWN_APP');
  const enterpriseId = enterpriseOfChannel(app, work.teamId, work.channelId);
  if (enterpriseId === null) return ignored('UNMAPPED_CHANNEL');
  if (work.kind === 'rating') return rate(work, app, enterpriseId, deps, budget);

  const slack = deps.slackOf(app);
  let sessionId: string;
  let followUp = false;
  let threadTs: string | null = null;
  const runId = slackRunId(app.id, work.kind === 'mention' ? work.eventId : work.invocationId);
  if (work.kind === 'mention' && work.threadTs !== null) {
    // A mention in a thread: a follow-up, but only in the thread of one of our cards, of this channel's enterprise.
    const ref = await deps.cards.findByMessage(app.id, work.channelId, work.threadTs);
    if (ref === null) return ignored('NOT_A_CARD_THREAD');
    if (ref.enterpriseId !== enterpriseId || ref.appId !== app.id || ref.channelId !== work.channelId) {
      return ignored('ENTERPRISE_MISMATCH');
    }
    sessionId = ref.sessionId;
    followUp = true;
    threadTs = ref.rootTs;
  } else {
    sessionId = `slack.${runId.slice('slack-'.length)}`;
  }
  const replyTs = threadTs ?? (work.kind === 'mention' ? work.ts : null);
  /** A notice in words; a 429 on it brings the whole work back (starting it again changes nothing). */
  const say = async (text: string, refusal: ConversationOutcome): Promise<ConversationOutcome> => {
    const said = await slack.postMessage({
      channel: work.channelId,
      ...(replyTs === null ? {} : { threadTs: replyTs }),
      ...buildNoticeMessage(text),
    });
    if (!said.ok && said.retryAfterSeconds !== null) return { outcome: 'RETRY', delaySeconds: said.retryAfterSeconds };
    return refusal;
  };
  if (work.text.trim() === '') {
    return say('Ask a question after the mention (or after /diagnose), and I will investigate it.', {
      outcome: 'REFUSED',
      code: 'EMPTY_QUESTION',
    });
  }

  try {
    await startDiagnosis({ runId, sessionId, enterpriseId, query: work.text, continueSession: followUp }, deps.start);
  } catch (error) {
    if (error instanceof DiagnosisTenantBusyError) {
      return say(
        `${enterpriseId} has as many diagnoses running as it may; nothing was started. Try again in a few minutes.`,
        { outcome: 'REFUSED', code: error.code },
      );
    }
    if (error instanceof DiagnosisError && error.name === 'DiagnosisInputError') {
      return say(`This question cannot be investigated as it is (${error.code}); nothing was started.`, {
        outcome: 'REFUSED',
        code: error.code,
      });
    }
    throw error;
  }
  // NOTE: the run's id is the event's: a retried event (even one handled at the same time) finds its run started
  // and its card claimed, and only advances that card: it never posts a second one.
  const card = await startCard(
    {
      runId,
      appId: app.id,
      teamId: work.teamId,
      channelId: work.channelId,
      enterpriseId,
      sessionId,
      threadTs,
      query: work.text,
      startedBy: 'Slack',
      requesterId: work.userId,
      followUp,
    },
    deps,
    budget,
  );
  return { outcome: 'STARTED', runId, followUp, card };
}

async function rate(
  work: Extract<SlackWork, { kind: 'rating' }>,
  app: ResolvedSlackApp,
  enterpriseId: string,
  deps: ConversationDeps,
  budget: CallBudget,
): Promise<ConversationOutcome> {
  const ref = await deps.cards.findByMessage(app.id, work.channelId, work.messageTs);
  if (ref === null) return ignored('NOT_A_CARD');
  if (ref.enterpriseId !== enterpriseId) return ignored('ENTERPRISE_MISMATCH');
  // NOTE: the button's value is only compared: a value naming another run (of any enterprise) rates nothing.
  if (ref.runId !== work.claimedRunId) return ignored('RUN_MISMATCH');
  const run = await deps.runs.getRun(ref.runId);
  if (run === null || run.enterpriseId !== enterpriseId || run.sessionId !== ref.sessionId) {
    return ignored('ENTERPRISE_MISMATCH');
  }
  let result: Awaited<ReturnType<Rating>>;
  try {
    const input = parseFeedbackInput({
      verdict: work.verdict,
      ...(work.rootCause === null ? {} : { rootCause: work.rootCause }),
      ...(work.note === null ? {} : { note: work.note }),
    });
    result = await deps.rate({ run, caller: slackRater(work.userTeamId ?? work.teamId, work.userId), input });
  } catch (error) {
    if (error instanceof DiagnosisError && error.name === 'DiagnosisInputError') return ignored(error.code);
    throw error;
  }
  if (!result.created) return { outcome: 'RATED', runId: run.runId, created: false, card: null };
  await deps.cards.addRating(run.runId);
  // The card redraws its result with the new count (or comes back for it: a 429 never loses it).
  const card = await advanceCard(run.runId, deps, budget, { known: run });
  return { outcome: 'RATED', runId: run.runId, created: true, card };
}
