/**
 * The SlackWork queue's work: a mention or `/diagnose` starts a run and posts its card; a mention in a card's thread
 * starts a follow-up in the card's session (`continueSession`: the previous published result is its previous turn);
 * a rating is recorded through the API's own feedback path; and the card follows its run (`followRun`).
 * NOTE: the tenant is bound here, on the server, from configuration and our own records only: the enterprise is the
 * app's channel mapping's; the run a click or a thread reply means is the card found by (app, channel, message ts),
 * whose enterprise must be the channel's and whose run must be the one the button names — otherwise nothing happens.
 */
import { createHash } from 'node:crypto';
import {
  DiagnosisError,
  DiagnosisTenantBusyError,
  type FeedbackMasking,
  type FeedbackStore,
  parseFeedbackInput,
  type RunStore,
  recordFeedback,
  type StartDiagnosisDeps,
  startDiagnosis,
} from '@diagnosis/core';
import { isEnded, type StoredRun } from '@diagnosis/core/store';
import { buildRunFinishedEvent, type RunFinishedOptions } from '../delivery/run-finished-event.ts';
import type { CardStore, SlackCard } from './card-store.ts';
import {
  buildDetailsReply,
  buildNoticeMessage,
  buildProgressCard,
  buildResultCard,
  buildStartedCard,
  type CardSubject,
} from './run-card.ts';
import type { SlackApi } from './slack-api.ts';
import { SlackCallError } from './slack-call-error.ts';
import { enterpriseOfChannel, type ResolvedSlackApp, type SlackAppDirectory } from './slack-settings.ts';
import type { SlackWork } from './slack-work.ts';

/** The least time between two progress updates of one card: 12 a minute, well inside `chat.update`'s tier 3. */
export const CARD_UPDATE_INTERVAL_MS = 5_000;

export interface ConversationDeps {
  apps: SlackAppDirectory;
  /** The Slack Web API as one app's bot (one client per app, built once per cold start). */
  slackOf(app: ResolvedSlackApp): SlackApi;
  cards: CardStore;
  runs: Pick<RunStore, 'getRun' | 'listPseudonyms' | 'appendPseudonyms'>;
  start: StartDiagnosisDeps;
  feedback: FeedbackStore;
  masking: Omit<FeedbackMasking, 'pseudonyms'>;
  now: () => number;
  event?: RunFinishedOptions;
  updateIntervalMs?: number;
}

export const CONVERSATION_IGNORED = Object.freeze([
  'UNKNOWN_APP',
  'UNMAPPED_CHANNEL',
  'NOT_A_CARD_THREAD',
  'NOT_A_CARD',
  'ENTERPRISE_MISMATCH',
  'RUN_MISMATCH',
  'DUPLICATE',
  'NO_CARD',
  'NOT_YET',
] as const);
export type ConversationIgnored = (typeof CONVERSATION_IGNORED)[number];

export type ConversationOutcome =
  | { outcome: 'STARTED'; runId: string; followUp: boolean }
  | { outcome: 'REFUSED'; code: string }
  | { outcome: 'RATED'; runId: string; created: boolean }
  | { outcome: 'UPDATED'; runId: string; final: boolean }
  | { outcome: 'IGNORED'; code: ConversationIgnored | string }
  /** Slack said 429: the work comes back after this many seconds. */
  | { outcome: 'RETRY'; delaySeconds: number };

const ignored = (code: ConversationIgnored | string): ConversationOutcome => ({ outcome: 'IGNORED', code });

/** A run id bound to the Slack event (or command invocation) that asked for it: a retried event is the same run. */
export function slackRunId(appId: string, slackId: string): string {
  return `slack-${createHash('sha256').update(`${appId}:${slackId}`).digest('hex').slice(0, 40)}`;
}

/** The rater's identity as stored with a rating: the workspace and the Slack user, never a name. */
export const slackRater = (teamId: string, userId: string) => `slack:${teamId}:${userId}`;

export async function handleSlackWork(work: SlackWork, deps: ConversationDeps): Promise<ConversationOutcome> {
  if (work.kind === 'card') return followRun(work.runId, deps);
  const app = deps.apps.get(work.appId);
  if (app === undefined) return ignored('UNKNOWN_APP');
  const enterpriseId = enterpriseOfChannel(app, work.teamId, work.channelId);
  if (enterpriseId === null) return ignored('UNMAPPED_CHANNEL');
  if (work.kind === 'rating') return rate(work, app, enterpriseId, deps);

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
  const say = async (text: string) => {
    const message = buildNoticeMessage(text);
    await slack.postMessage({
      channel: work.channelId,
      ...(replyTs === null ? {} : { threadTs: replyTs }),
      ...message,
    });
  };
  if (work.text.trim() === '') {
    await say('Ask a question after the mention (or after /diagnose), and I will investigate it.');
    return { outcome: 'REFUSED', code: 'EMPTY_QUESTION' };
  }

  let run: StoredRun;
  try {
    run = await startDiagnosis(
      { runId, sessionId, enterpriseId, query: work.text, continueSession: followUp },
      deps.start,
    );
  } catch (error) {
    if (error instanceof DiagnosisTenantBusyError) {
      await say(
        `${enterpriseId} has as many diagnoses running as it may; nothing was started. Try again in a few minutes.`,
      );
      return { outcome: 'REFUSED', code: error.code };
    }
    if (error instanceof DiagnosisError && error.name === 'DiagnosisInputError') {
      await say(`This question cannot be investigated as it is (${error.code}); nothing was started.`);
      return { outcome: 'REFUSED', code: error.code };
    }
    throw error;
  }
  // NOTE: the run's id is the event's: a retried event finds its run started and its card claimed, and stops here.
  const subject: CardSubject = { runId, enterpriseId, query: work.text, startedBy: 'Slack', followUp };
  const claimed = await deps.cards.claimCard(
    { ...subject, appId: app.id, teamId: work.teamId, channelId: work.channelId, sessionId, threadTs },
    deps.now(),
  );
  if (!claimed) {
    const card = await deps.cards.getCard(runId);
    if (card === null || card.ts !== null) return ignored('DUPLICATE');
  }
  const posted = await slack.postMessage({
    channel: work.channelId,
    ...(threadTs === null ? {} : { threadTs }),
    ...buildStartedCard(subject),
  });
  if (!posted.ok) {
    if (posted.retryAfterSeconds !== null) return { outcome: 'RETRY', delaySeconds: posted.retryAfterSeconds };
    throw new SlackCallError(posted.code);
  }
  await deps.cards.markPosted(runId, posted.ts, deps.now());
  // The run may have ended while the card was posted: its final record found no card to replace.
  if (isEnded(run.status) || isEnded((await deps.runs.getRun(runId))?.status ?? 'QUEUED')) {
    await followRun(runId, deps);
  }
  return { outcome: 'STARTED', runId, followUp };
}

async function rate(
  work: Extract<SlackWork, { kind: 'rating' }>,
  app: ResolvedSlackApp,
  enterpriseId: string,
  deps: ConversationDeps,
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
  let result: Awaited<ReturnType<typeof recordFeedback>>;
  try {
    const input = parseFeedbackInput({
      verdict: work.verdict,
      ...(work.rootCause === null ? {} : { rootCause: work.rootCause }),
      ...(work.note === null ? {} : { note: work.note }),
    });
    result = await recordFeedback(
      { run, caller: slackRater(work.teamId, work.userId), input },
      { feedback: deps.feedback, masking: { ...deps.masking, pseudonyms: deps.runs }, now: deps.now },
    );
  } catch (error) {
    if (error instanceof DiagnosisError && error.name === 'DiagnosisInputError') return ignored(error.code);
    throw error;
  }
  if (result.created) {
    const count = await deps.cards.addRating(run.runId);
    const card = await deps.cards.getCard(run.runId);
    const status = run.status;
    if (card !== null && card.ts !== null && isEnded(status)) {
      const detail = buildRunFinishedEvent({ ...run, status }, deps.event).detail;
      await deps.slackOf(app).updateMessage({
        channel: card.channelId,
        ts: card.ts,
        ...buildResultCard(detail, { count }),
      });
    }
  }
  return { outcome: 'RATED', runId: run.runId, created: result.created };
}

/**
 * Brings a run's card up to date with the stored run: a progress update at most once per interval (coalesced: only
 * the newest state is drawn, older ones are dropped), the result once the run ended (then the details in the thread).
 * A 429 blocks the card until its `Retry-After`; a final update it stopped is returned as RETRY, so it comes back.
 */
export async function followRun(
  runId: string,
  deps: ConversationDeps,
  known?: StoredRun,
): Promise<ConversationOutcome> {
  const card = await deps.cards.getCard(runId);
  if (card === null) return postTriggeredCard(runId, deps, known);
  if (card.ts === null) return ignored('NO_CARD');
  const app = deps.apps.get(card.appId);
  if (app === undefined) return ignored('UNKNOWN_APP');
  const run = known ?? (await deps.runs.getRun(runId));
  // NOTE: the run must be the card's enterprise's and session's (a run id reused after expiry is another run).
  if (run === null || run.enterpriseId !== card.enterpriseId || run.sessionId !== card.sessionId) {
    return ignored('ENTERPRISE_MISMATCH');
  }
  const status = run.status;
  const final = isEnded(status);
  if (!final && run.progress === null) return ignored('NOT_YET');
  const now = deps.now();
  if (!(await deps.cards.takeUpdateSlot(runId, now, deps.updateIntervalMs ?? CARD_UPDATE_INTERVAL_MS, final))) {
    return ignored('NOT_YET');
  }
  const slack = deps.slackOf(app);
  const ts = card.ts;
  const subject: CardSubject = {
    runId,
    enterpriseId: card.enterpriseId,
    query: card.query,
    startedBy: card.startedBy,
    followUp: card.followUp,
  };
  if (!final) {
    const updated = await slack.updateMessage({
      channel: card.channelId,
      ts,
      ...buildProgressCard(subject, run.progress ?? emptyProgress),
    });
    if (!updated.ok && updated.retryAfterSeconds !== null) {
      await deps.cards.recordBlocked(runId, now + updated.retryAfterSeconds * 1_000, false);
    }
    return { outcome: 'UPDATED', runId, final: false };
  }
  if (!isEnded(status)) return ignored('NOT_YET');
  const detail = buildRunFinishedEvent({ ...run, status }, deps.event).detail;
  const replaced = await slack.updateMessage({
    channel: card.channelId,
    ts,
    ...buildResultCard(detail, { count: card.ratings }),
  });
  if (!replaced.ok) {
    if (replaced.retryAfterSeconds !== null) {
      await deps.cards.recordBlocked(runId, now + replaced.retryAfterSeconds * 1_000, true);
      return { outcome: 'RETRY', delaySeconds: replaced.retryAfterSeconds };
    }
    throw new SlackCallError(replaced.code);
  }
  const details = buildDetailsReply(detail);
  if (details !== null) {
    await slack.postMessage({ channel: card.channelId, threadTs: card.threadTs ?? ts, ...details });
  }
  return { outcome: 'UPDATED', runId, final: true };
}

/**
 * A run an alarm or webhook started gets its card in its enterprise's alert channel (`alertChannel`), once: the card
 * is claimed by a conditional write, so two records of the run post one card.
 */
async function postTriggeredCard(
  runId: string,
  deps: ConversationDeps,
  known?: StoredRun,
): Promise<ConversationOutcome> {
  const run = known ?? (await deps.runs.getRun(runId));
  if (run === null || run.trigger === null) return ignored('NO_CARD');
  const app = [...deps.apps.values()].find(
    (candidate) => candidate.enterpriseId === run.enterpriseId && candidate.alertChannel !== null,
  );
  if (app === undefined || app.alertChannel === null) return ignored('NO_CARD');
  const channelId = app.alertChannel;
  const subject: CardSubject = {
    runId,
    enterpriseId: run.enterpriseId,
    query: run.trigger.title === '' ? run.query : `${run.trigger.title}\n${run.query}`,
    startedBy: run.trigger.source,
    followUp: false,
  };
  const claimed = await deps.cards.claimCard(
    { ...subject, appId: app.id, teamId: app.teamId, channelId, sessionId: run.sessionId, threadTs: null },
    deps.now(),
  );
  if (!claimed) return ignored('DUPLICATE');
  const posted = await deps.slackOf(app).postMessage({ channel: channelId, ...buildStartedCard(subject) });
  if (!posted.ok) {
    // NOTE: the claim stays, without a ts: this run's card is not posted twice; the failure is logged by code.
    throw new SlackCallError(posted.code);
  }
  await deps.cards.markPosted(runId, posted.ts, deps.now());
  const latest = await deps.runs.getRun(runId);
  if (latest !== null && (isEnded(latest.status) || latest.progress !== null)) return followRun(runId, deps, latest);
  return { outcome: 'STARTED', runId, followUp: false };
}

const emptyProgress = { modelCalls: 0, toolCalls: 0, rejectedToolCalls: 0, totalTokens: 0, checks: [] };

export type { SlackCard };
export { SlackCallError };
