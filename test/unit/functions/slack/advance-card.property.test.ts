/**
 * The card's state machine (docs/chat.md, "The card's states") as a property (fast-check, fixed seed): for one to
 * three runs (alarm-started in the alert channel, or started by a mention, some in one channel), a schedule
 * interleaves the runs' stream records delivered at least once and out of order (duplicates, stale images), the
 * mentions delivered again (Slack's retry), queue items delivered twice, early and late, several SlackWork
 * invocations at once (every store read and write and every Slack call is a point where another invocation may run,
 * `fc.scheduler`), invocations with little time left, and Slack answering every call with ok, a 429 with its
 * `Retry-After`, a 5xx, no answer (the client's whole limit spent) or a reset connection. Time is a virtual clock that
 * moves between rounds past leases and `Retry-After`s. Then everything is delivered until the queue is quiet, and
 * every run has exactly one card, showing its result with the rating buttons, its details reply once in the thread,
 * nothing drawn over the result, no call for a card within a 429's `Retry-After`, and no card left pending.
 * The real SlackWork handler (stream and queue batches), the in-memory run and card stores (the card store's contract
 * suite holds its twin to the DynamoDB adapter), a Slack Web API fake in Slack's answers.
 * NOTE: over 300 lines on purpose: one model — the world, the schedule's arbitraries and the property's checks.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { ProgressSnapshot } from '@diagnosis/core';
import { createMemoryFeedbackStore, createMemoryRunStore, runKey } from '@diagnosis/core/store';
import type { Context, DynamoDBRecord } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESPONDER_STATUS } from '../../../../functions/delivery/result-words.ts';
import { createObservability } from '../../../../functions/lambda/observability.ts';
import type { Rating } from '../../../../functions/ratings/rating.ts';
import type { CardStore } from '../../../../functions/slack/card-store.ts';
import { createMemoryCardStore } from '../../../../functions/slack/memory-card-store.ts';
import type { SlackApi, SlackCallResult } from '../../../../functions/slack/slack-api.ts';
import type { ConversationDeps } from '../../../../functions/slack/slack-conversation.ts';
import { slackRunId } from '../../../../functions/slack/slack-conversation.ts';
import { resolveSlackApps } from '../../../../functions/slack/slack-settings.ts';
import type { SlackWork } from '../../../../functions/slack/slack-work.ts';
import { createSlackWorkHandler } from '../../../../functions/slack/slack-work-handler.ts';
import { type FinishedKind, outcomeOf } from '../../../support/finished-runs.ts';
import { propertyRuns } from '../../../support/property-runs.ts';
import { recordingWorkflow } from '../../../support/recording-workflow.ts';

const T0 = Date.parse('2026-12-03T02:00:00.000Z');
const TEAM = 'T0E1001AA';
const ALERT_CHANNEL = 'C0E1001AA';
const OTHER_CHANNEL = 'C0E1001BB';
const SLACK_TIMEOUT_MS = 5_000;
const apps = resolveSlackApps(
  [
    {
      id: 'e1001',
      enterpriseId: 'E1001',
      teamId: TEAM,
      channels: [ALERT_CHANNEL, OTHER_CHANNEL],
      alertChannel: ALERT_CHANNEL,
      botTokenSecret: 'SlackE1001Bot',
      signingSecretSecret: 'SlackE1001Signing',
    },
  ],
  (name) => (name.endsWith('Bot') ? 'xoxb-1001-0123456789-loopback' : 'signing-secret-e1001-0123456789'),
);

type Answer =
  | { kind: 'ok' }
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  | { kind: 'server-error' }
  | { kind: 'timeout' }
  | { kind: 'reset' };

interface RunPlan {
  started: 'alarm' | 'mention';
  channel: typeof ALERT_CHANNEL | typeof OTHER_CHANNEL;
  progressSteps: number;
  ending: FinishedKind;
}

type Action =
  | { kind: 'life'; run: number }
  | { kind: 'stream'; picks: number[] }
  | { kind: 'queue'; picks: number[]; again: boolean }
  | { kind: 'mention'; run: number }
  | { kind: 'card'; run: number };

interface Round {
  actions: { action: Action; remainingMs: number }[];
  advanceMs: number;
}

const progressOf = (rounds: number): ProgressSnapshot => ({
  modelCalls: rounds,
  toolCalls: rounds,
  rejectedToolCalls: 0,
  totalTokens: rounds * 1_000,
  checks: Array.from({ length: rounds }, (_, index) => ({
    toolCallId: `call_${index}`,
    toolName: index % 2 === 0 ? ('query_logs' as const) : ('query_mysql' as const),
    status: 'READY' as const,
    empty: false,
    evaluation: null,
  })),
});

const itemKey = (runId: string) => `${runKey(runId).pk}|${runKey(runId).sk}`;

/** What a message shows, from its blocks: the result (with its buttons), progress, or the started card. */
function faceOf(blocks: readonly unknown[]): 'RESULT' | 'PROGRESS' | 'STARTED' | 'OTHER' {
  const text = JSON.stringify(blocks);
  if (text.includes('rate_correct')) return 'RESULT';
  if (text.includes('Round ')) return 'PROGRESS';
  if (text.includes('Queued: waiting')) return 'STARTED';
  return 'OTHER';
}

interface Message {
  channel: string;
  ts: string;
  threadTs: string | null;
  label: string;
  blocks: readonly unknown[];
  /** Every face the message was drawn with, in order. */
  faces: string[];
}

/** The world: the stores, a Slack Web API fake answering from the schedule, the stream's records and the queue. */
function createWorld(runPlans: RunPlan[], answers: Answer[], scheduler: fc.Scheduler | null) {
  // biome-ignore lint/suspicious/noExplicitAny: any async function, scheduled as it is
  const scheduled = <F extends (...args: any[]) => Promise<any>>(call: F): F =>
    scheduler === null ? call : (scheduler.scheduleFunction(call) as F);
  let now = T0;
  const clock = () => now;
  const runs = createMemoryRunStore({ now: clock });
  const cards = createMemoryCardStore();
  const feedback = createMemoryFeedbackStore();
  const recorded = recordingWorkflow();
  const messages = new Map<string, Message>();
  const violations: string[] = [];
  /** A card's label (the run's) → no call for it before this instant (a 429's Retry-After). */
  const blockedUntil = new Map<string, number>();
  let sequence = 0;
  let answerIndex = 0;
  let faults = true;
  const nextAnswer = (): Answer => {
    if (!faults) return { kind: 'ok' };
    const answer = answers[answerIndex] ?? { kind: 'ok' };
    answerIndex += 1;
    return answer;
  };
  const labelOf = (blocks: readonly unknown[]) => /case-[0-9]/.exec(JSON.stringify(blocks))?.[0] ?? 'unlabelled';
  /** One Slack call: the answer decided, a 429 remembered, the Retry-After checked. */
  const answerCall = (label: string, spend: (ms: number) => void): Extract<SlackCallResult, { ok: false }> | null => {
    if ((blockedUntil.get(label) ?? 0) > now) violations.push(`a call for ${label} within its Retry-After`);
    const answer = nextAnswer();
    if (answer.kind === 'ok') return null;
    if (answer.kind === 'rate-limited') {
      blockedUntil.set(label, now + answer.retryAfterSeconds * 1_000);
      return { ok: false, code: 'RATE_LIMITED', retryAfterSeconds: answer.retryAfterSeconds };
    }
    if (answer.kind === 'server-error') return { ok: false, code: 'HTTP_ERROR', retryAfterSeconds: null };
    // No answer: the client's whole limit is spent before it gives up; a reset costs nothing.
    if (answer.kind === 'timeout') spend(SLACK_TIMEOUT_MS);
    return { ok: false, code: 'NETWORK', retryAfterSeconds: null };
  };
  const slackFor = (spend: (ms: number) => void): SlackApi => ({
    postMessage: scheduled(async (request) => {
      const root = request.threadTs === undefined ? undefined : messages.get(request.threadTs);
      const label = root?.label ?? labelOf(request.blocks);
      const failed = answerCall(label, spend);
      if (failed !== null) return failed;
      sequence += 1;
      const ts = `1796018000.${String(sequence).padStart(6, '0')}`;
      const face = faceOf(request.blocks);
      messages.set(ts, {
        channel: request.channel,
        ts,
        threadTs: request.threadTs ?? null,
        label,
        blocks: request.blocks,
        faces: [face],
      });
      return { ok: true as const, ts };
    }),
    updateMessage: scheduled(async (request) => {
      const message = messages.get(request.ts);
      if (message === undefined)
        return { ok: false as const, code: 'SLACK_message_not_found', retryAfterSeconds: null };
      const failed = answerCall(message.label, spend);
      if (failed !== null) return failed;
      message.blocks = request.blocks;
      message.faces.push(faceOf(request.blocks));
      return { ok: true as const };
    }),
    openView: async () => ({ ok: true }),
  });
  // Every store read and write is a point where another invocation may run.
  const scheduledCards: CardStore = {
    claimCard: scheduled(cards.claimCard),
    getCard: scheduled(cards.getCard),
    takeLease: scheduled(cards.takeLease),
    recordPosted: scheduled(cards.recordPosted),
    recordDrawn: scheduled(cards.recordDrawn),
    recordDetailsPosted: scheduled(cards.recordDetailsPosted),
    releaseLease: scheduled(cards.releaseLease),
    findByMessage: scheduled(cards.findByMessage),
    addRating: scheduled(cards.addRating),
    reservePost: scheduled(cards.reservePost),
    claimOnce: scheduled(cards.claimOnce),
  };
  const scheduledRuns = { getRun: scheduled(runs.getRun) };

  // The stream's records (each run item's image after a write) and the SlackWork queue.
  const records: DynamoDBRecord[] = [];
  const undelivered = new Set<DynamoDBRecord>();
  const queue: { work: SlackWork; visibleAt: number }[] = [];
  const requeue = async (work: SlackWork, delaySeconds: number) => {
    queue.push({ work, visibleAt: now + delaySeconds * 1_000 });
  };
  const emit = (runId: string, eventName: 'INSERT' | 'MODIFY') => {
    const item = runs.items.get(itemKey(runId));
    if (item === undefined) return;
    const record: DynamoDBRecord = {
      eventName,
      dynamodb: {
        NewImage: marshall(item, { removeUndefinedValues: true }) as never,
        SequenceNumber: String(records.length + 1).padStart(21, '0'),
      },
    };
    records.push(record);
    undelivered.add(record);
  };

  // The runs: ids, their mentions, and how far each has gone (0 not started … the last step ended).
  const plans = runPlans.map((plan, index) => {
    const label = `case-${index}`;
    const eventId = `Ev0CASE${index}00`;
    const runId = plan.started === 'alarm' ? `alarm-run-${index}` : slackRunId('e1001', eventId);
    const mention: SlackWork = {
      kind: 'mention',
      appId: 'e1001',
      teamId: TEAM,
      channelId: plan.channel,
      userId: 'U0PERSON1',
      eventId,
      ts: `1796017000.00010${index}`,
      threadTs: null,
      text: `why is checkout slow? (${label})`,
    };
    return { ...plan, label, runId, mention, step: 0, mentioned: false };
  });
  const lastStep = (plan: (typeof plans)[number]) => plan.progressSteps + 1;
  /** The run's next step as the diagnosis writes it: claimed (RUNNING), progress, ended. */
  const live = async (index: number) => {
    const plan = plans[index];
    if (plan === undefined || plan.step > lastStep(plan)) return;
    if ((await runs.getRun(plan.runId)) === null) return;
    if (plan.step === 0) await runs.claimQueuedRun(plan.runId, now + 600_000);
    else if (plan.step <= plan.progressSteps) {
      await runs.updateProgress(plan.runId, { usage: outcomeOf('PUBLISHED').usage, progress: progressOf(plan.step) });
    } else await runs.completeRun(plan.runId, outcomeOf(plan.ending));
    plan.step += 1;
    emit(plan.runId, 'MODIFY');
  };

  const observability = createObservability('SlackWork', () => undefined);
  /** One SlackWork invocation with `remainingMs` left: its own Slack client spends its time on the virtual clock. */
  const invoke = async (event: unknown, remainingMs: number) => {
    let spent = 0;
    const spend = (ms: number) => {
      spent += ms;
    };
    const slack = slackFor(spend);
    const deps: ConversationDeps = {
      apps,
      slackOf: () => slack,
      cards: scheduledCards,
      runs: scheduledRuns,
      feedback,
      start: { store: runs, workflow: recorded.workflow },
      rate: (async () => {
        throw new Error('no rating in this model');
      }) as unknown as Rating,
      now: clock,
      slackTimeoutMs: SLACK_TIMEOUT_MS,
    };
    const handler = createSlackWorkHandler(deps, { ...observability, requeue });
    const context = {
      functionName: 'SlackWork',
      awsRequestId: `virtual-${now}`,
      getRemainingTimeInMillis: () => Math.max(0, remainingMs - spent),
    } as unknown as Context;
    return handler(event as never, context);
  };
  const deliverRecords = async (batch: DynamoDBRecord[], remainingMs: number) => {
    if (batch.length === 0) return;
    for (const record of batch) undelivered.delete(record);
    const answer = await invoke({ Records: batch }, remainingMs);
    // As Lambda does: a failed record (and those after it) comes again.
    const failed = new Set(answer.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const record of batch) if (failed.has(record.dynamodb?.SequenceNumber ?? '')) undelivered.add(record);
  };
  const deliverWork = async (works: SlackWork[], remainingMs: number) => {
    if (works.length === 0) return;
    const event = {
      Records: works.map((work, index) => ({ messageId: `m-${index}`, body: JSON.stringify(work) })),
    };
    const answer = await invoke(event, remainingMs);
    // A failed message comes back after the queue's visibility timeout.
    for (const failure of answer.batchItemFailures) {
      const work = works[Number(failure.itemIdentifier.slice(2))];
      if (work !== undefined) queue.push({ work, visibleAt: now + 60_000 });
    }
  };

  const perform = async (action: Action, remainingMs: number) => {
    if (action.kind === 'life') return live(action.run % plans.length);
    if (action.kind === 'stream') {
      if (records.length === 0) return;
      const batch = action.picks.map((pick) => records[pick % records.length] as DynamoDBRecord);
      return deliverRecords(batch, remainingMs);
    }
    if (action.kind === 'queue') {
      const visible = queue.filter((entry) => entry.visibleAt <= now);
      if (visible.length === 0) return;
      const batch = [...new Set(action.picks.map((pick) => visible[pick % visible.length]))].filter(
        (entry) => entry !== undefined,
      );
      // Delivered again later (at least once), or taken off the queue.
      if (!action.again) for (const entry of batch) queue.splice(queue.indexOf(entry), 1);
      return deliverWork(
        batch.map((entry) => entry.work),
        remainingMs,
      );
    }
    const plan = plans[action.run % plans.length];
    if (plan === undefined) return;
    if (action.kind === 'card') return deliverWork([{ kind: 'card', runId: plan.runId }], remainingMs);
    if (plan.started !== 'mention') return;
    plan.mentioned = true;
    await deliverWork([plan.mention], remainingMs);
    emit(plan.runId, 'INSERT');
  };

  /** The alarms' runs as the Trigger queues them (each one a stream record). */
  const setUp = async () => {
    for (const plan of plans) {
      if (plan.started !== 'alarm') continue;
      await runs.queueRun(
        {
          runId: plan.runId,
          sessionId: `session-${plan.runId}`,
          enterpriseId: 'E1001',
          query: `订单失败 (${plan.label})`,
          continueSession: false,
          trigger: {
            source: 'cloudwatch',
            incidentKey: `arn:aws:cloudwatch:eu-west-1:000000000000:alarm:${plan.runId}`,
            eventId: `ev-${plan.runId}`,
            title: `E1001-payment-5xx ${plan.label}`,
            startedAt: new Date(now).toISOString(),
          },
        },
        { executionArn: recorded.workflow.executionArnOf(plan.runId) },
      );
      emit(plan.runId, 'INSERT');
    }
  };

  /**
   * Slack answers again; every mention is delivered, every run ends, every record not yet handled is delivered, and
   * the queue is delivered item by item (the clock moved to each delayed one) until it is empty.
   */
  const drain = async () => {
    faults = false;
    const settle = async (task: Promise<void>) => {
      await scheduler?.waitIdle();
      await task;
    };
    for (const [index, plan] of plans.entries()) {
      if (plan.started === 'mention' && !plan.mentioned) await settle(perform({ kind: 'mention', run: index }, 60_000));
    }
    for (let round = 0; round < 500; round += 1) {
      // A run goes on once it exists (a mention put back for want of time starts it later).
      const going = plans.findIndex((plan) => plan.step <= lastStep(plan) && runs.items.has(itemKey(plan.runId)));
      if (going !== -1) {
        await live(going);
        continue;
      }
      const record = [...undelivered][0];
      if (record !== undefined) {
        await settle(deliverRecords([record], 60_000));
        continue;
      }
      const visible = queue.findIndex((entry) => entry.visibleAt <= now);
      if (visible !== -1) {
        const [entry] = queue.splice(visible, 1);
        if (entry !== undefined) await settle(deliverWork([entry.work], 60_000));
        continue;
      }
      if (queue.length === 0) return;
      now = Math.min(...queue.map((entry) => entry.visibleAt));
    }
    throw new Error('the queue did not drain');
  };

  return {
    plans,
    messages,
    violations,
    cards,
    setUp,
    perform,
    drain,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const answer: fc.Arbitrary<Answer> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'ok' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .integer({ min: 1, max: 30 })
      .map((retryAfterSeconds) => ({ kind: 'rate-limited' as const, retryAfterSeconds })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'server-error' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'timeout' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
);
const runPlan: fc.Arbitrary<RunPlan> = fc.record({
  started: fc.constantFrom('alarm' as const, 'mention' as const),
  channel: fc.constantFrom(ALERT_CHANNEL, OTHER_CHANNEL),
  progressSteps: fc.integer({ min: 0, max: 3 }),
  ending: fc.constantFrom<FinishedKind>('PUBLISHED', 'FAILED', 'FALLBACK'),
});
const picks = fc.array(fc.nat({ max: 20 }), { minLength: 1, maxLength: 4 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('life' as const), run: fc.nat({ max: 2 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('stream' as const), picks }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('queue' as const), picks, again: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('mention' as const), run: fc.nat({ max: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('card' as const), run: fc.nat({ max: 2 }) }) },
);
const round: fc.Arbitrary<Round> = fc.record({
  // Invocations at once; one with little time left can make one Slack call at most, or none.
  actions: fc.array(fc.record({ action, remainingMs: fc.constantFrom(60_000, 60_000, 12_000, 6_500, 3_000) }), {
    minLength: 1,
    maxLength: 3,
  }),
  // Within a round the clock stands (every call's time is within its limit); between rounds it moves on.
  advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 100, max: 2_000 }), fc.integer({ min: 2_000, max: 40_000 })),
});

describe('advanceCard (the card state machine, interleaved)', () => {
  it("draws the result when a batch brings the run's ended record before an older one of the same run", async () => {
    const world = createWorld(
      [{ started: 'alarm', channel: ALERT_CHANNEL, progressSteps: 0, ending: 'PUBLISHED' }],
      [],
      null,
    );
    await world.setUp();
    await world.perform({ kind: 'stream', picks: [0] }, 60_000);
    await world.perform({ kind: 'life', run: 0 }, 60_000);
    await world.perform({ kind: 'life', run: 0 }, 60_000);
    // The ended record first, the run's first record (QUEUED) after it, in one batch.
    await world.perform({ kind: 'stream', picks: [2, 0] }, 60_000);
    await world.drain();
    const [card] = [...world.messages.values()].filter((message) => message.threadTs === null);
    expect(faceOf(card?.blocks ?? [])).toBe('RESULT');
  });

  it('ends every run with exactly one card showing its result, its details once, whatever the order and Slack say', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(runPlan, { minLength: 1, maxLength: 3 }),
        fc.array(round, { minLength: 1, maxLength: 14 }),
        fc.array(answer, { maxLength: 24 }),
        fc.scheduler(),
        async (runPlans, rounds, answers, scheduler) => {
          const world = createWorld(runPlans, answers, scheduler);
          await world.setUp();
          for (const { actions, advanceMs } of rounds) {
            const started = actions.map(({ action: next, remainingMs }) =>
              scheduler.schedule(Promise.resolve()).then(() => world.perform(next, remainingMs)),
            );
            await scheduler.waitIdle();
            await Promise.all(started);
            world.advance(advanceMs);
          }
          await world.drain();

          const all = [...world.messages.values()];
          for (const plan of world.plans) {
            const cards = all.filter((message) => message.label === plan.label && message.threadTs === null);
            expect(cards, `${plan.label}: one card`).toHaveLength(1);
            const [card] = cards;
            if (card === undefined) return;
            expect(card.channel).toBe(plan.started === 'alarm' ? ALERT_CHANNEL : plan.channel);
            // Its final state: the result, with the rating buttons, saying how the run ended.
            expect(faceOf(card.blocks), `${plan.label}: the result`).toBe('RESULT');
            expect(JSON.stringify(card.blocks)).toContain(`${RESPONDER_STATUS[plan.ending]} · E1001`);
            // Nothing drawn over the result once it was shown.
            const first = card.faces.indexOf('RESULT');
            expect(
              card.faces.slice(first).every((face) => face === 'RESULT'),
              card.faces.join(' → '),
            ).toBe(true);
            const details = all.filter((message) => message.threadTs === card.ts);
            expect(details, `${plan.label}: one details reply`).toHaveLength(1);
            const stored = await world.cards.getCard(plan.runId);
            expect(stored).toMatchObject({ ts: card.ts, face: 'FINAL', detailsPosted: true });
          }
          expect(world.violations).toEqual([]);
        },
      ),
      propertyRuns(400, 60, 43_043),
    );
  });
});
