/**
 * The records of the table's stream that reach SlackWork, as deployed: a run's life written by the real store on
 * DynamoDB Local with a stream, its records read back as Lambda delivers them, and the deployment's filters applied as
 * Lambda applies them. The first card's record (the run inserted) and the final card's (the run ended) are among them;
 * the mapping has no batching window (test/unit/deploy/sst-config.slack.test.ts), so neither waits on one.
 */
import { createDynamoFeedbackStore, createDynamoRunStore, type RunOutcome } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUN_FINISHED_STREAM_FILTERS } from '../../../deploy/delivery.ts';
import { SLACK_CARD_STREAM_FILTERS } from '../../../deploy/slack.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { T0 } from '../../support/run-fixtures.ts';
import { progressOf } from '../../support/slack-world.ts';
import { streamFilterDelivers } from '../../support/stream-filter.ts';
import { createStreamTable, type StreamTable } from '../../support/table-stream.ts';

const client = localDynamoClient();
let table: StreamTable;

beforeAll(async () => {
  table = await createStreamTable(client);
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

describe('SLACK_CARD_STREAM_FILTERS', () => {
  it('delivers a run’s first record (inserted), its progress and its end from DynamoDB Local’s stream', async () => {
    const store = createDynamoRunStore({ client, tableName: table.tableName, now: () => T0 });
    await table.readNewRecords();
    const runId = 'run-card-stream';
    await store.queueRun({ runId, sessionId: 's-1', enterpriseId: 'E1001', query: '下单失败', continueSession: false });
    await store.claimQueuedRun(runId, T0 + 60_000);
    await store.updateProgress(runId, { usage: outcomeOf('PUBLISHED').usage, progress: progressOf(2) });
    await store.completeRun(runId, outcomeOf('PUBLISHED') as RunOutcome);

    const { Records } = await table.readNewRecords();
    const runRecords = Records.filter((record) => record.dynamodb?.Keys?.sk?.S === 'RUN');
    const delivered = runRecords.filter((record) => streamFilterDelivers(SLACK_CARD_STREAM_FILTERS, record));
    const describe = (record: (typeof Records)[number]) =>
      `${record.eventName} ${record.dynamodb?.NewImage?.status?.S ?? ''}`;

    expect(delivered.map(describe)).toEqual(runRecords.map(describe));
    expect(delivered.map(describe).at(0)).toBe('INSERT QUEUED');
    expect(delivered.map(describe).at(-1)).toBe('MODIFY SUCCEEDED');
    // The result event's mapping sees the end alone: two readers of the stream, each with its own filter.
    expect(Records.filter((record) => streamFilterDelivers(RUN_FINISHED_STREAM_FILTERS, record)).map(describe)).toEqual(
      ['MODIFY SUCCEEDED'],
    );
    // Nothing but run items reaches SlackWork from the stream (ratings below).
    for (const record of Records.filter((each) => each.dynamodb?.Keys?.sk?.S !== 'RUN')) {
      expect(streamFilterDelivers(SLACK_CARD_STREAM_FILTERS, record)).toBe(false);
    }
  });

  it('delivers a new rating of the run (its card shows every rating), not a rating item changed', async () => {
    const feedback = createDynamoFeedbackStore({ client, tableName: table.tableName });
    await table.readNewRecords();
    const entry = {
      runId: 'run-card-rated',
      enterpriseId: 'E1001',
      caller: 'arn:aws:sts::123456789012:assumed-role/OnCall/alice',
      callerKey: 'alice0key',
      sequence: 1,
      createdAt: new Date(T0).toISOString(),
      verdict: 'CORRECT' as const,
      rootCause: null,
      note: null,
    };
    expect(await feedback.putFeedback(entry, new Date(T0).toISOString())).toBe(true);
    const { Records } = await table.readNewRecords();
    expect(Records.map((record) => record.eventName)).toEqual(['INSERT']);
    expect(streamFilterDelivers(SLACK_CARD_STREAM_FILTERS, Records[0])).toBe(true);
    const modified = { ...Records[0], eventName: 'MODIFY' };
    expect(streamFilterDelivers(SLACK_CARD_STREAM_FILTERS, modified)).toBe(false);
    expect(streamFilterDelivers(RUN_FINISHED_STREAM_FILTERS, Records[0])).toBe(false);
  });
});

describe('streamFilterDelivers', () => {
  it('matches a record only when every key the filter names holds one of its values', () => {
    const filter = [{ eventName: ['MODIFY'], dynamodb: { NewImage: { status: { S: ['SUCCEEDED'] } } } }];

    expect(
      streamFilterDelivers(filter, { eventName: 'MODIFY', dynamodb: { NewImage: { status: { S: 'SUCCEEDED' } } } }),
    ).toBe(true);
    expect(
      streamFilterDelivers(filter, { eventName: 'MODIFY', dynamodb: { NewImage: { status: { S: 'RUNNING' } } } }),
    ).toBe(false);
    expect(
      streamFilterDelivers(filter, { eventName: 'INSERT', dynamodb: { NewImage: { status: { S: 'SUCCEEDED' } } } }),
    ).toBe(false);
    expect(streamFilterDelivers(filter, { eventName: 'MODIFY', dynamodb: {} })).toBe(false);
  });
});
