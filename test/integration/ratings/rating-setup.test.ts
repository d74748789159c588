/**
 * The rating use case as the functions compose it (`composeRating`) on DynamoDB Local, with every request it sends
 * recorded: what it reads and writes of the table is exactly what `RATING_TABLE_ACCESS` grants the functions that
 * record ratings (RunFeedback and SlackWork, sst.config.ts), so a grant cannot be missing where a rating runs.
 */
import { DEVELOPMENT_MASKING_SECRET, type FeedbackInput } from '@diagnosis/core';
import { createDynamoPastIncidentStore, createDynamoRunStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATING_TABLE_ACCESS } from '../../../functions/ratings/rating-access.ts';
import { composeRating } from '../../../functions/ratings/rating-setup.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { outcomeOf } from '../../support/finished-runs.ts';
import { supportedDraft } from '../../support/run-fixtures.ts';

type AttributeValue = { S?: string } | string | undefined;
type Keyed = { pk?: AttributeValue };

const client = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
/** `<IAM action> <partition key>` of every item request the client sent, as IAM authorizes it (per item). */
const sent: string[] = [];

const pkOf = (item: Keyed | undefined) => {
  const value = item?.pk;
  return typeof value === 'string' ? value : (value?.S ?? '?');
};

/** The IAM actions and partition keys of one DynamoDB request (a transaction or a batch is authorized per item). */
function itemRequests(command: string, input: Record<string, unknown>): string[] {
  const action = command.replace(/Command$/, '');
  switch (action) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [`${action} ${pkOf(input.Key as Keyed)}`];
    case 'PutItem':
      return [`PutItem ${pkOf(input.Item as Keyed)}`];
    case 'Query': {
      const values = input.ExpressionAttributeValues as Record<string, AttributeValue> | undefined;
      return [`Query ${pkOf({ pk: values?.[':pk'] })}`];
    }
    case 'TransactWriteItems':
      return (input.TransactItems as Record<string, { Item?: Keyed; Key?: Keyed }>[]).flatMap((entry) =>
        Object.entries(entry).map(([kind, request]) => {
          const itemAction = { Put: 'PutItem', Delete: 'DeleteItem', Update: 'UpdateItem' }[kind] ?? `${kind}Item`;
          return `${itemAction} ${pkOf(request.Item ?? request.Key)}`;
        }),
      );
    default:
      return [`${action} ?`];
  }
}

/** Whether a grant of `RATING_TABLE_ACCESS` allows the request (partitions as IAM's StringLike: `*` any run). */
function granted(request: string): boolean {
  const [action, partition] = request.split(' ') as [string, string];
  return RATING_TABLE_ACCESS.some(
    (grant) =>
      grant.actions.includes(action) &&
      grant.partitions.some((pattern) => partition.startsWith(pattern.slice(0, -1)) && pattern.endsWith('*')),
  );
}

beforeAll(async () => {
  table = await createTestTable(client);
  client.middlewareStack.add(
    (next, context) => (args) => {
      sent.push(...itemRequests(String(context.commandName), args.input as Record<string, unknown>));
      return next(args);
    },
    { step: 'build', name: 'recordItemRequests' },
  );
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

const input = (verdict: FeedbackInput['verdict'], rootCause: string | null = null): FeedbackInput => ({
  verdict,
  rootCause,
  note: null,
});

describe('composeRating', () => {
  it('sends the table only what RATING_TABLE_ACCESS grants, while it remembers, re-rates and retracts', async () => {
    const setup = createDynamoRunStore({ client, tableName: table.tableName });
    await setup.startRun({ runId: 'r1', sessionId: 's1', enterpriseId: 'E1001', query: 'q', continueSession: false });
    await setup.completeRun('r1', { ...outcomeOf('PUBLISHED', supportedDraft(['call_0'])), masking: 'identifiers' });
    const run = await setup.getRun('r1');
    if (run === null) throw new Error('no run');
    sent.length = 0;

    const rate = composeRating({
      client,
      tableName: table.tableName,
      masking: { secret: DEVELOPMENT_MASKING_SECRET, mode: 'identifiers' },
      pastIncidentRetentionDays: 30,
    });
    // A new pseudonym (the phone) joins the run's map; the memory is made, then retracted for good.
    await rate({ run, caller: 'slack:T0E1001AA:U0PERSON1', input: input('CORRECT', '客户 13912345678 的渠道被停用') });
    expect(
      await createDynamoPastIncidentStore({ client, tableName: table.tableName }).get('E1001', 'r1', Date.now()),
    ).not.toBeNull();
    await rate({ run, caller: 'slack:T0E1001AA:U0PERSON1', input: input('WRONG') });
    await rate({ run, caller: 'slack:T0E1001AA:U0PERSON2', input: input('UNHELPFUL') });

    const kinds = new Set(sent.map((request) => request.replace(/#.*$/, '#')));
    expect(kinds).toEqual(
      new Set([
        'Query FEEDBACK#',
        'PutItem FEEDBACK#',
        'Query PSEUDONYMS#',
        'PutItem PSEUDONYMS#',
        'GetItem PAST#',
        'PutItem PAST#',
        'DeleteItem PAST#',
      ]),
    );
    expect(sent.filter((request) => !granted(request))).toEqual([]);
  });
});
