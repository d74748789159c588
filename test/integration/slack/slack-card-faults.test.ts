/**
 * The run's card under what really happens around it: Slack's retry of a mention handled beside the original, 429s
 * with `Retry-After`, 5xx and calls Slack never answers, on the first post, on a progress update, on the result and
 * on the rating line's redraw; several alarms at once in one alert channel; a stream batch during a Slack outage
 * with little time left; a rater from another workspace in a Slack Connect channel; ratings given through the API
 * and the command line shown on the card with their raters. Each through the real handlers
 * on DynamoDB Local and its stream, against the loopback Slack Web API, on a virtual clock (test/support/slack-world).
 */
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseFeedbackInput } from '@diagnosis/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { partitionItems } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { supportedDraft } from '../../support/run-fixtures.ts';
import {
  buttonClick,
  eventCallbackBody,
  interactivityBody,
  mentionEvent,
  SLACK_CHANNEL,
  SLACK_USER,
} from '../../support/slack-requests.ts';
import { blocksText, OTHER_CHANNEL, progressOf, type SlackWorld, startSlackWorld } from '../../support/slack-world.ts';

let world: SlackWorld;
// NOTE: a call Slack never answers lasts the client's whole limit, in real time: 2 s here.
beforeEach(async () => {
  world = await startSlackWorld({ slackTimeoutMs: 2_000 });
});
afterEach(async () => {
  await world.close();
});

const isResult = (message: { blocks: unknown[] } | undefined) => blocksText(message).includes('rate_correct');
const posts = () => world.slack.calls.filter((call) => call.method === 'chat.postMessage');

/** A triggered run whose card is posted and which is RUNNING. */
async function runningWithCard(runId: string) {
  await world.triggeredRun(runId);
  await world.settle();
  world.advance(1_000);
  await world.runs.claimQueuedRun(runId, world.now() + 600_000);
  await world.settle();
  const card = world.cardsIn().find((message) => blocksText(message).includes(runId));
  if (card === undefined) throw new Error(`no card for ${runId}`);
  return card;
}

describe('the card when Slack retries a mention beside the original', () => {
  it('posts one card while the first invocation is still posting it', async () => {
    // Slack answers the original's post only after the retry was handled: a client timeout that outlasts it.
    await world.close();
    world = await startSlackWorld({ slackTimeoutMs: 20_000 });
    const body = eventCallbackBody(
      mentionEvent('why is checkout slow?', '1796018300.000100', { channel: OTHER_CHANNEL }),
      'Ev0RETRY001',
    );
    await world.post('events', body, 'application/json');
    world.advance(3_500);
    await world.post('events', body, 'application/json', 1);
    expect(world.queue).toHaveLength(2);
    const [original, retry] = world.queue.splice(0);
    if (original === undefined || retry === undefined) throw new Error('two messages expected');
    // The original's chat.postMessage is held by Slack until the retry's invocation has done all it does.
    let release = () => {};
    let holding = () => {};
    const held = new Promise<void>((resolve) => {
      holding = resolve;
    });
    world.setFault((call) => {
      if (call.method !== 'chat.postMessage') return undefined;
      world.setFault(null);
      holding();
      return { kind: 'delay', until: new Promise<void>((resolve) => (release = resolve)) };
    });
    const first = world.handleQueue([original]);
    await held;
    await world.handleQueue([retry]);
    world.advance(1_500);
    release();
    await first;
    await world.settle();
    expect(world.cardsIn(OTHER_CHANNEL)).toHaveLength(1);
    expect(new Set(world.recorded.started).size).toBe(1);
  });
});

describe('a run that ends while its card is blocked by a 429', () => {
  it('shows the result once the Retry-After has passed', async () => {
    const card = await runningWithCard('blocked-run');
    world.failNext('chat.update', { kind: 'rate-limited', retryAfterSeconds: 30 });
    world.advance(6_000);
    await world.runs.updateProgress('blocked-run', { usage: outcomeOf('PUBLISHED').usage, progress: progressOf(2) });
    await world.handleStream(await world.readStream());
    world.advance(1_000);
    await world.runs.completeRun('blocked-run', outcomeOf('PUBLISHED', supportedDraft(['call_0'])));
    const endedAt = world.now();
    await world.settle();
    expect(isResult(card)).toBe(true);
    const replaced = world.slack.calls.filter((call) => call.method === 'chat.update' && call.status === 200);
    // Not before the 429's Retry-After (30 s from the blocked update, 29 s after the run ended).
    expect(replaced.at(-1)?.at).toBeGreaterThanOrEqual(endedAt + 29_000);
    expect(world.slack.messages.size).toBe(2);
  });
});

describe("an alarm-started run's first post", () => {
  it.each([
    ['a 429', { kind: 'rate-limited', retryAfterSeconds: 7 }],
    ['a 503', { kind: 'server-error', status: 503 }],
    ['no answer', { kind: 'hang' }],
    ['a reset connection', { kind: 'reset' }],
  ] as const)('posts the card after %s, and the card then shows the result', async (_name, fault) => {
    world.failNext('chat.postMessage', fault);
    await world.triggeredRun('first-post-run');
    const firstAt = world.now();
    await world.settle();
    const cards = world.cardsIn();
    expect(cards).toHaveLength(1);
    if (fault.kind === 'rate-limited') {
      expect(posts().find((call) => call.status === 200)?.at).toBeGreaterThanOrEqual(firstAt + 7_000);
    }
    await world.runs.claimQueuedRun('first-post-run', world.now() + 600_000);
    await world.runs.completeRun('first-post-run', outcomeOf('FAILED'));
    await world.settle();
    expect(world.cardsIn()).toHaveLength(1);
    expect(blocksText(cards[0])).toContain('Failed · E1001');
  });

  it('spaces several alarms in one alert channel a second apart, with no 429', async () => {
    for (let index = 0; index < 5; index += 1) await world.triggeredRun(`burst-${index}`);
    await world.settle();
    expect(world.cardsIn()).toHaveLength(5);
    const answered = posts().filter((call) => call.args.channel === SLACK_CHANNEL);
    expect(answered.every((call) => call.status === 200)).toBe(true);
    const times = answered.map((call) => call.at);
    for (let index = 1; index < times.length; index += 1) {
      expect((times[index] ?? 0) - (times[index - 1] ?? 0)).toBeGreaterThanOrEqual(1_000);
    }
  });
});

describe('the result update', () => {
  it.each([
    ['a 503', { kind: 'server-error', status: 503 }],
    ['no answer', { kind: 'hang' }],
  ] as const)('is drawn after %s on its first try, with its details once in the thread', async (_name, fault) => {
    const card = await runningWithCard('final-fault-run');
    world.advance(6_000);
    world.failNext('chat.update', fault);
    await world.runs.completeRun('final-fault-run', outcomeOf('PUBLISHED', supportedDraft(['call_0'])));
    await world.settle();
    expect(isResult(card)).toBe(true);
    expect([...world.slack.messages.values()].filter((message) => message.threadTs === card.ts)).toHaveLength(1);
  });

  it('posts the details reply after a 429 on it', async () => {
    const card = await runningWithCard('details-run');
    world.advance(6_000);
    world.failNext('chat.postMessage', { kind: 'rate-limited', retryAfterSeconds: 3 });
    await world.runs.completeRun('details-run', outcomeOf('PUBLISHED', supportedDraft(['call_0'])));
    await world.settle();
    expect(isResult(card)).toBe(true);
    expect([...world.slack.messages.values()].filter((message) => message.threadTs === card.ts)).toHaveLength(1);
  });
});

describe('a stream batch during a Slack outage', () => {
  it("ends before the function's deadline, and every run's result is drawn once Slack answers", async () => {
    // One run at a time, so the virtual clock can stand for the time each unanswered call takes.
    await world.close();
    world = await startSlackWorld({ slackTimeoutMs: 2_000, concurrency: 1 });
    const runIds = Array.from({ length: 20 }, (_, index) => `outage-${index}`);
    for (const runId of runIds) await world.triggeredRun(runId);
    await world.settle();
    for (const runId of runIds) await world.runs.claimQueuedRun(runId, world.now() + 600_000);
    await world.settle();
    world.advance(6_000);
    for (const runId of runIds) await world.runs.completeRun(runId, outcomeOf('FAILED'));
    // Slack does not answer: each call fails after the client's whole limit (2 s, counted on the virtual clock).
    world.setFault(() => {
      world.advance(2_000);
      return { kind: 'reset' };
    });
    // 12 s left: one unanswered call after another would need 40 s.
    const invocation = world.context(12_000);
    const answer = await world.handleStream(await world.readStream(), invocation);
    expect(invocation.getRemainingTimeInMillis()).toBeGreaterThan(0);
    expect(answer.batchItemFailures).toEqual([]);
    world.setFault(null);
    await world.settle();
    const cards = world.cardsIn();
    expect(cards).toHaveLength(20);
    for (const card of cards) expect(blocksText(card)).toContain('Failed · E1001');
  });
});

describe('a rating', () => {
  async function ratedCard(runId: string) {
    const card = await runningWithCard(runId);
    world.advance(6_000);
    await world.runs.completeRun(runId, outcomeOf('PUBLISHED', supportedDraft(['call_0'])));
    await world.settle();
    return card;
  }

  it("redraws the rating line after a 429 on the card's update", async () => {
    const card = await ratedCard('rated-run');
    world.advance(10_000);
    world.failNext('chat.update', { kind: 'rate-limited', retryAfterSeconds: 4 });
    await world.post(
      'interactivity',
      interactivityBody(buttonClick('rate_correct', 'rated-run', card.ts)),
      'application/x-www-form-urlencoded',
    );
    await world.settle();
    expect(blocksText(card)).toContain(`Rated *Correct* by <@${SLACK_USER}>`);
  });

  it("records a rater in a Slack Connect channel with the user's own workspace", async () => {
    const card = await ratedCard('connect-run');
    world.advance(10_000);
    await world.post(
      'interactivity',
      interactivityBody(buttonClick('rate_wrong', 'connect-run', card.ts, { userTeam: 'T0GUEST01' })),
      'application/x-www-form-urlencoded',
    );
    await world.settle();
    const documents = DynamoDBDocumentClient.from(world.dynamo);
    const feedback = await partitionItems(documents, world.table.tableName, ['FEEDBACK#connect-run']);
    expect(feedback).toMatchObject([{ caller: `slack:T0GUEST01:${SLACK_USER}` }]);
    expect(blocksText(card)).toContain(`Rated *Wrong* by <@${SLACK_USER}>`);
    expect(SLACK_CHANNEL).toBe(card.channel);
  });

  it('shows a rating given through the API and one given on the command line, with who gave them', async () => {
    const card = await ratedCard('api-rated-run');
    world.advance(10_000);
    const run = await world.runs.getRun('api-rated-run');
    if (run === null) throw new Error('no run');
    const updates = () => world.slack.calls.filter((call) => call.method === 'chat.update').length;
    const before = updates();
    await world.deps.rate({
      run,
      caller: 'arn:aws:sts::123456789012:assumed-role/OnCall/alice',
      input: parseFeedbackInput({ verdict: 'WRONG' }),
    });
    await world.deps.rate({ run, caller: 'local:bob', input: parseFeedbackInput({ verdict: 'CORRECT' }) });
    await world.settle();
    expect(blocksText(card)).toContain('Rated *Correct* by bob (command line) · *Wrong* by alice (API)');
    expect(blocksText(card)).not.toContain('123456789012');
    // A Slack click after them: drawn once by its own path, not again from its stream record.
    const afterApi = updates();
    expect(afterApi).toBeGreaterThan(before);
    await world.post(
      'interactivity',
      interactivityBody(buttonClick('rate_correct', 'api-rated-run', card.ts)),
      'application/x-www-form-urlencoded',
    );
    await world.settle();
    const line = blocksText(card).split('Rated ')[1] ?? '';
    expect(line.split(' · *Wrong*')[0]).toMatch(
      /^\*Correct\* by (bob \(command line\), <@U0PERSON1>|<@U0PERSON1>, bob)/,
    );
    expect(updates()).toBe(afterApi + 1);
  });
});
