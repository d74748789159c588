/**
 * The run's card as a state machine (docs/chat.md, "The card's states"): each call brings the card one or more steps
 * closer to its run — posted, then progress at most once per interval, then the result with its rating count and its
 * details in the thread — from what is stored, never from what a delivery says alone. It may be called any number of
 * times, twice at once, late or out of order (the table's stream and the SlackWork queue deliver at least once):
 * - every Slack call for a card is made under the card's lease (`CardStore.takeLease`), so one is in flight at a time;
 * - the throttle is read before anything is written: a progress record within the interval writes nothing;
 * - whatever stops a step that must happen (the post, the result, its rating count, its details) — a 429, a 5xx, no
 *   answer, the card busy, the channel's post slot later, too little time left in the invocation — comes back as
 *   DEFERRED with the delay after which a `card` work item will try again (a 429's `Retry-After`, a backoff); only
 *   progress is dropped (a newer record, or the result, draws the card again).
 * NOTE: over 300 lines on purpose: one state machine, the card's: its states, leases, intervals and backoff are one
 * transition function.
 */
import type { FeedbackStore } from '@diagnosis/core';
import { isEnded, type RunStore, type StoredRun } from '@diagnosis/core/store';
import { buildRunFinishedEvent, type RunFinishedOptions } from '../delivery/run-finished-event.ts';
import {
  type CardLease,
  type CardStore,
  leaseAllows,
  type NewSlackCard,
  resultPending,
  type SlackCard,
} from './card-store.ts';
import {
  buildDetailsReply,
  buildProgressCard,
  buildResultCard,
  buildStartedCard,
  type CardSubject,
  originOfCard,
} from './run-card.ts';
import type { SlackApi, SlackCallResult } from './slack-api.ts';
import type { ResolvedSlackApp, SlackAppDirectory } from './slack-settings.ts';

/** The least time between two progress updates of one card: 12 a minute, well inside `chat.update`'s tier 3. */
const CARD_UPDATE_INTERVAL_MS = 5_000;
/** `chat.postMessage` in one channel: one a second (Slack's own limit), paced by a slot per channel. */
const CHANNEL_POST_INTERVAL_MS = 1_000;
/** Tries of a step that must happen before it is given up (about half an hour of backoff). */
const MAX_CARD_ATTEMPTS = 10;
/** The time kept free after a Slack call's own limit for the writes that record it. */
export const DEFAULT_CALL_RESERVE_MS = 1_000;

export interface CardDeps {
  apps: SlackAppDirectory;
  slackOf(app: ResolvedSlackApp): SlackApi;
  cards: CardStore;
  runs: Pick<RunStore, 'getRun'>;
  /** The one rating store (every path records there): the result card shows each rater's verdict. */
  feedback: Pick<FeedbackStore, 'listFeedback'>;
  now: () => number;
  event?: RunFinishedOptions;
  /** Each Slack call's limit (SLACK_TIMEOUT_MS): a lease lasts two calls and a margin. */
  slackTimeoutMs: number;
  updateIntervalMs?: number;
  postIntervalMs?: number;
}

/** Whether the invocation still has time for one more Slack call and the writes after it. */
export interface CallBudget {
  canCall(): boolean;
}
export const UNBOUNDED: CallBudget = { canCall: () => true };

export type CardOutcome =
  | { outcome: 'POSTED'; runId: string }
  | { outcome: 'UPDATED'; runId: string; final: boolean }
  | { outcome: 'IGNORED'; code: string }
  /** Put a `card` work item back after `delaySeconds`, with its attempt and the channel slot it holds. */
  | { outcome: 'DEFERRED'; runId: string; code: string; delaySeconds: number; attempt: number; slotAt: number | null }
  /** A step that must happen failed `MAX_CARD_ATTEMPTS` times, or Slack refused it for good: given up, logged. */
  | { outcome: 'ABANDONED'; runId: string; code: string };

export interface AdvanceOptions {
  /** The run as a stream record shows it (read from the store when absent). */
  known?: StoredRun;
  /** How many times this card's pending step was tried already. */
  attempt?: number;
  /** A channel post slot this work reserved earlier (ms). */
  slotAt?: number | null;
}

const ignored = (code: string): CardOutcome => ({ outcome: 'IGNORED', code });
const emptyProgress = { modelCalls: 0, toolCalls: 0, rejectedToolCalls: 0, totalTokens: 0, checks: [] };

/** 2 s, 4 s, 8 s, … at most SQS's longest delay (15 minutes). */
const backoffSeconds = (attempt: number) => Math.min(900, 2 ** (attempt + 1));

/** Slack's answers that no retry changes (the message is gone, the bot left the channel, the blocks are refused). */
const PERMANENT = new Set([
  'SLACK_message_not_found',
  'SLACK_channel_not_found',
  'SLACK_not_in_channel',
  'SLACK_is_archived',
  'SLACK_invalid_blocks',
  'SLACK_msg_too_long',
  'SLACK_invalid_auth',
  'SLACK_account_inactive',
  'SLACK_token_revoked',
]);

function leaseMsOf(deps: Pick<CardDeps, 'slackTimeoutMs'>) {
  return 2 * deps.slackTimeoutMs + 5_000;
}

/**
 * One invocation's work on one card. `runId`'s card is found (or, for a run an alarm or a webhook started, claimed in
 * its enterprise's alert channel) and advanced as far as it can go now.
 */
export async function advanceCard(
  runId: string,
  deps: CardDeps,
  budget: CallBudget,
  options: AdvanceOptions = {},
): Promise<CardOutcome> {
  const step = new CardStep(runId, deps, budget, options);
  return step.run();
}

/** Claims a new card (a run started from Slack) and posts it; a card that exists is advanced instead. */
export async function startCard(
  card: NewSlackCard,
  deps: CardDeps,
  budget: CallBudget,
  options: AdvanceOptions = {},
): Promise<CardOutcome> {
  const step = new CardStep(card.runId, deps, budget, options);
  const lease = await deps.cards.claimCard(card, deps.now(), leaseMsOf(deps));
  return lease === null ? step.run() : step.post(lease);
}

class CardStep {
  private readonly runId: string;
  private readonly deps: CardDeps;
  private readonly budget: CallBudget;
  private attempt: number;
  private slotAt: number | null;
  private known: StoredRun | undefined;
  constructor(runId: string, deps: CardDeps, budget: CallBudget, options: AdvanceOptions) {
    this.runId = runId;
    this.deps = deps;
    this.budget = budget;
    this.attempt = options.attempt ?? 0;
    this.slotAt = options.slotAt ?? null;
    this.known = options.known;
  }

  private deferred(code: string, delayMs: number, counts = true): CardOutcome {
    const attempt = counts ? this.attempt + 1 : this.attempt;
    if (attempt >= MAX_CARD_ATTEMPTS) return { outcome: 'ABANDONED', runId: this.runId, code };
    return {
      outcome: 'DEFERRED',
      runId: this.runId,
      code,
      delaySeconds: Math.min(900, Math.max(0, Math.ceil(delayMs / 1_000))),
      attempt,
      slotAt: this.slotAt,
    };
  }

  /** A failed call: the lease ended (a 429 also blocks the card), and what the failure defers or abandons. */
  private async failed(lease: CardLease, result: Extract<SlackCallResult, { ok: false }>): Promise<CardOutcome> {
    if (result.retryAfterSeconds !== null) {
      const until = this.deps.now() + result.retryAfterSeconds * 1_000;
      await this.deps.cards.releaseLease(lease, until);
      return this.deferred(result.code, result.retryAfterSeconds * 1_000);
    }
    await this.deps.cards.releaseLease(lease);
    if (PERMANENT.has(result.code)) return { outcome: 'ABANDONED', runId: this.runId, code: result.code };
    return this.deferred(result.code, backoffSeconds(this.attempt) * 1_000);
  }

  private appOf(appId: string) {
    return this.deps.apps.get(appId);
  }

  /** The channel slot for a post: the one this work holds, or a new one (null: not before `slotAt`, deferred). */
  private async postSlot(app: ResolvedSlackApp, channelId: string): Promise<boolean> {
    const now = this.deps.now();
    if (this.slotAt !== null && this.slotAt <= now) {
      this.slotAt = null;
      return true;
    }
    const slot = await this.deps.cards.reservePost(
      app.id,
      channelId,
      now,
      this.deps.postIntervalMs ?? CHANNEL_POST_INTERVAL_MS,
    );
    if (slot <= now) return true;
    this.slotAt = slot;
    return false;
  }

  async run(): Promise<CardOutcome> {
    // Bounded: each pass either acts, returns, or finds the card changed by another invocation.
    for (let pass = 0; pass < 4; pass += 1) {
      const card = await this.deps.cards.getCard(this.runId);
      if (card === null) return this.claimTriggered();
      if (this.appOf(card.appId) === undefined) return ignored('UNKNOWN_APP');
      const now = this.deps.now();
      if (card.ts === null) {
        // Being posted by another invocation (or blocked: the one that met the 429 comes back itself).
        if (!leaseAllows(card, 'post', now, 0)) return ignored('POSTING');
        const lease = await this.deps.cards.takeLease(card, 'post', now, leaseMsOf(this.deps), 0);
        if (lease === null) continue;
        return this.post(lease);
      }
      const run = this.known ?? (await this.deps.runs.getRun(this.runId));
      // NOTE: the run must be the card's enterprise's and session's (a run id reused after expiry is another run).
      if (run === null || run.enterpriseId !== card.enterpriseId || run.sessionId !== card.sessionId) {
        return ignored('ENTERPRISE_MISMATCH');
      }
      if (isEnded(run.status)) {
        if (!resultPending(card)) return ignored('UP_TO_DATE');
        if (card.leaseUntil > now || card.blockedUntil > now) {
          return this.deferred(
            card.blockedUntil > now ? 'BLOCKED' : 'CARD_BUSY',
            Math.max(card.leaseUntil, card.blockedUntil) - now,
          );
        }
        const lease = await this.deps.cards.takeLease(card, 'result', now, leaseMsOf(this.deps), 0);
        if (lease === null) {
          this.known = undefined;
          continue;
        }
        return this.drawResult(lease, run);
      }
      const interval = this.deps.updateIntervalMs ?? CARD_UPDATE_INTERVAL_MS;
      // NOTE: the throttle read before any write: a progress record within the interval costs one read.
      if (run.progress === null || !leaseAllows(card, 'progress', now, interval)) return ignored('NOT_YET');
      const lease = await this.deps.cards.takeLease(card, 'progress', now, leaseMsOf(this.deps), interval);
      if (lease === null) return ignored('NOT_YET');
      return this.drawProgress(lease, run);
    }
    return this.deferred('CARD_BUSY', 1_000);
  }

  /** A run an alarm or a webhook started: its card in its enterprise's alert channel, claimed once. */
  private async claimTriggered(): Promise<CardOutcome> {
    const run = this.known ?? (await this.deps.runs.getRun(this.runId));
    if (run === null || run.trigger === null) return ignored('NO_CARD');
    const app = [...this.deps.apps.values()].find(
      (candidate) => candidate.enterpriseId === run.enterpriseId && candidate.alertChannel !== null,
    );
    if (app === undefined || app.alertChannel === null) return ignored('NO_CARD');
    const lease = await this.deps.cards.claimCard(
      {
        runId: this.runId,
        appId: app.id,
        teamId: app.teamId,
        channelId: app.alertChannel,
        enterpriseId: run.enterpriseId,
        sessionId: run.sessionId,
        threadTs: null,
        query: run.trigger.title === '' ? run.query : `${run.trigger.title}\n${run.query}`,
        startedBy: run.trigger.source,
        requesterId: null,
        followUp: false,
      },
      this.deps.now(),
      leaseMsOf(this.deps),
    );
    // Claimed meanwhile by another invocation: advanced as it is.
    return lease === null ? this.run() : this.post(lease);
  }

  /** Posts the card under its `post` lease, then brings it up to date with the run as stored now. */
  async post(lease: CardLease): Promise<CardOutcome> {
    const card = lease.card;
    const app = this.appOf(card.appId);
    if (app === undefined) {
      await this.deps.cards.releaseLease(lease);
      return ignored('UNKNOWN_APP');
    }
    if (!this.budget.canCall()) {
      await this.deps.cards.releaseLease(lease);
      return this.deferred('NO_TIME', 0, false);
    }
    if (!(await this.postSlot(app, card.channelId))) {
      await this.deps.cards.releaseLease(lease);
      return this.deferred('CHANNEL_PACED', (this.slotAt ?? 0) - this.deps.now(), false);
    }
    const posted = await this.deps.slackOf(app).postMessage({
      channel: card.channelId,
      ...(card.threadTs === null ? {} : { threadTs: card.threadTs }),
      ...buildStartedCard(subjectOf(card)),
    });
    if (!posted.ok) return this.failed(lease, posted);
    await this.deps.cards.recordPosted(lease, posted.ts, this.deps.now());
    // NOTE: the run may have moved (or ended) while the card was posted: its records found no card to draw.
    this.known = undefined;
    this.attempt = 0;
    const next = await this.run();
    return next.outcome === 'IGNORED' ? { outcome: 'POSTED', runId: this.runId } : next;
  }

  private async drawProgress(lease: CardLease, run: StoredRun): Promise<CardOutcome> {
    const card = lease.card;
    const app = this.appOf(card.appId);
    if (app === undefined || card.ts === null || !this.budget.canCall()) {
      await this.deps.cards.releaseLease(lease);
      return ignored('NO_TIME');
    }
    const updated = await this.deps.slackOf(app).updateMessage({
      channel: card.channelId,
      ts: card.ts,
      ...buildProgressCard(subjectOf(card), run.progress ?? emptyProgress),
    });
    if (!updated.ok) {
      // NOTE: progress is never retried: a newer record, or the result, draws the card again.
      await this.deps.cards.releaseLease(
        lease,
        updated.retryAfterSeconds === null ? undefined : this.deps.now() + updated.retryAfterSeconds * 1_000,
      );
      return ignored(updated.code);
    }
    await this.deps.cards.recordDrawn(lease, 'PROGRESS', card.faceRatings, false);
    return { outcome: 'UPDATED', runId: this.runId, final: false };
  }

  /** The result (with the rating count the card has now), then the details in the thread, under one lease. */
  private async drawResult(lease: CardLease, run: StoredRun): Promise<CardOutcome> {
    const card = lease.card;
    const app = this.appOf(card.appId);
    if (app === undefined || card.ts === null || !isEnded(run.status)) {
      await this.deps.cards.releaseLease(lease);
      return ignored('NO_CARD');
    }
    const slack = this.deps.slackOf(app);
    const detail = buildRunFinishedEvent({ ...run, status: run.status }, this.deps.event).detail;
    const origin = originOfCard(card, run);
    if (card.face !== 'FINAL' || card.faceRatings !== card.ratings) {
      if (!this.budget.canCall()) {
        await this.deps.cards.releaseLease(lease);
        return this.deferred('NO_TIME', 0, false);
      }
      // NOTE: the run's own ratings only (a store entry of another enterprise is never shown on this card).
      const ratings = (await this.deps.feedback.listFeedback(run.runId)).filter(
        (entry) => entry.enterpriseId === run.enterpriseId,
      );
      const replaced = await slack.updateMessage({
        channel: card.channelId,
        ts: card.ts,
        ...buildResultCard(detail, { origin, ratings }),
      });
      if (!replaced.ok) return this.failed(lease, replaced);
      await this.deps.cards.recordDrawn(lease, 'FINAL', card.ratings, !card.detailsPosted);
      this.attempt = 0;
    }
    if (card.detailsPosted) return { outcome: 'UPDATED', runId: this.runId, final: true };
    if (!this.budget.canCall()) {
      await this.deps.cards.releaseLease(lease);
      return this.deferred('NO_TIME', 0, false);
    }
    if (!(await this.postSlot(app, card.channelId))) {
      await this.deps.cards.releaseLease(lease);
      return this.deferred('CHANNEL_PACED', (this.slotAt ?? 0) - this.deps.now(), false);
    }
    const posted = await slack.postMessage({
      channel: card.channelId,
      threadTs: card.threadTs ?? card.ts,
      ...buildDetailsReply(detail, origin),
    });
    if (!posted.ok) return this.failed(lease, posted);
    await this.deps.cards.recordDetailsPosted(lease);
    return { outcome: 'UPDATED', runId: this.runId, final: true };
  }
}

function subjectOf(card: SlackCard): CardSubject {
  return {
    runId: card.runId,
    enterpriseId: card.enterpriseId,
    query: card.query,
    origin: originOfCard(card, null),
    followUp: card.followUp,
  };
}
