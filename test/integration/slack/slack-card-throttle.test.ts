/**
 * SlackWork reads a card's throttle before it writes anything (docs/chat.md, "progress is coalesced and throttled"):
 * a run's progress record inside the card's 5 s interval, read back from DynamoDB Local's stream and passed through
 * the deployed mapping's filter, costs the handler one read (the card) — no write, no Slack call; the first record
 * after the interval draws the card. Through the real handler, on a virtual clock (test/support/slack-world).
 */
import { emptyRunUsage } from '@diagnosis/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLACK_CARD_STREAM_FILTERS } from '../../../deploy/slack.ts';
import { recordCommands } from '../../support/dynamodb.ts';
import { blocksText, progressOf, type SlackWorld, startSlackWorld } from '../../support/slack-world.ts';
import { streamFilterDelivers } from '../../support/stream-filter.ts';

let world: SlackWorld;
let commands: string[];
beforeEach(async () => {
  world = await startSlackWorld();
  commands = recordCommands(world.dynamo);
});
afterEach(async () => {
  await world.close();
});

const updates = () => world.slack.calls.filter((call) => call.method === 'chat.update').length;
const cardOf = (runId: string) => blocksText(world.cardsIn().find((message) => blocksText(message).includes(runId)));

/** The run's new records as the SlackCards mapping delivers them, through the handler; its DynamoDB requests. */
async function deliverCounted(): Promise<string[]> {
  const records = (await world.readStream()).filter((record) =>
    streamFilterDelivers(SLACK_CARD_STREAM_FILTERS, record),
  );
  expect(records).toHaveLength(1);
  const from = commands.length;
  expect((await world.handleStream(records)).batchItemFailures).toEqual([]);
  return commands.slice(from);
}

describe('the SlackWork handler on a run’s progress record', () => {
  it('reads the card once and writes nothing when the record comes within the card’s interval', async () => {
    const runId = 'throttled-run';
    await world.triggeredRun(runId);
    await world.settle();
    world.advance(1_000);
    await world.runs.claimQueuedRun(runId, world.now() + 600_000);
    await world.settle();
    world.advance(6_000);
    await world.runs.updateProgress(runId, { usage: emptyRunUsage(), progress: progressOf(1) });
    const before = updates();
    await deliverCounted();
    expect(updates()).toBe(before + 1);
    expect(cardOf(runId)).toContain('Round 1 ');

    world.advance(1_000);
    await world.runs.updateProgress(runId, { usage: emptyRunUsage(), progress: progressOf(2) });
    const calls = world.slack.calls.length;
    expect(await deliverCounted()).toEqual(['GetItemCommand']);
    expect(world.slack.calls.length).toBe(calls);
    expect(cardOf(runId)).toContain('Round 1 ');

    world.advance(4_000);
    await world.runs.updateProgress(runId, { usage: emptyRunUsage(), progress: progressOf(3) });
    const requests = await deliverCounted();
    expect(requests[0]).toBe('GetItemCommand');
    expect(requests.filter((name) => name !== 'GetItemCommand').length).toBeGreaterThan(0);
    expect(updates()).toBe(before + 2);
    expect(cardOf(runId)).toContain('Round 3 ');
  });
});
