/**
 * CloudTrail management write calls as EventBridge delivers them (`AWS API Call via CloudTrail`), through the real
 * ChangeEvents handler on DynamoDB Local (issue 46): mapped by account and region as CloudWatch alarms are, recorded
 * once whatever EventBridge and Lambda's asynchronous retries deliver again, and read-only, failed, noise, unmapped
 * or malformed calls recorded nowhere.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { parseChangeSettings } from '@diagnosis/core/config';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createChangeEventHandler } from '../../../functions/changes/change-event-handler.ts';
import { buildChangeDeps } from '../../../functions/changes/change-setup.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { lambdaContext } from '../../support/lambda-events.ts';

const EVENT = JSON.parse(
  readFileSync(
    resolve(import.meta.dirname, '../../fixtures/changes/cloudtrail-update-function-configuration.json'),
    'utf8',
  ),
) as { account: string; region: string; detail: Record<string, unknown> };

const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);
let table: Awaited<ReturnType<typeof createTestTable>>;
let handler: ReturnType<typeof createChangeEventHandler>;
beforeAll(async () => {
  table = await createTestTable(dynamo);
  const settings = parseChangeSettings({
    DIAGNOSIS_TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    CHANGE_SOURCES: JSON.stringify([
      {
        source: 'cloudtrail',
        accountId: '111122223333',
        region: 'cn-north-1',
        enterpriseId: 'E1001',
        service: 'order-service',
      },
      { source: 'cloudtrail', accountId: '444455556666', enterpriseId: 'E2002', eventSources: ['rds.amazonaws.com'] },
    ]),
  });
  const deps = buildChangeDeps(
    settings,
    () => undefined,
    () => Date.parse('2026-11-30T06:03:05.000Z'),
  );
  handler = createChangeEventHandler(
    deps,
    createObservability('ChangeEvents', () => undefined),
  );
});
afterAll(async () => {
  await table.drop();
  dynamo.destroy();
});

async function items(): Promise<Record<string, unknown>[]> {
  const page = await documents.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
  return (page.Items ?? []).sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

const deliver = (event: unknown) => handler(event, lambdaContext(10_000));
const variant = (detail: Record<string, unknown>, envelope: Record<string, unknown> = {}) => ({
  ...EVENT,
  ...envelope,
  detail: { ...EVENT.detail, eventID: `variant-${JSON.stringify({ detail, envelope }).length}`, ...detail },
});

/** Asserts that delivering `event` records nothing and answers IGNORED with `code`. */
async function ignored(event: unknown, code: string) {
  const before = await items();
  expect(await deliver(event)).toEqual({ outcome: 'IGNORED', code });
  expect(await items()).toEqual(before);
}

describe('ChangeEvents: CloudTrail write calls through EventBridge', () => {
  it('records an UpdateFunctionConfiguration call of a mapped account and region as a configuration change', async () => {
    expect(await deliver(EVENT)).toEqual({ outcome: 'RECORDED', changeId: expect.stringMatching(/^chg_/) });
    const [change] = (await items()).filter((item) => item.entity === 'change');
    expect(change).toMatchObject({
      pk: 'CHANGES#E1001',
      source: 'cloudtrail',
      origin: '111122223333/cn-north-1',
      event_id: 'c9d3a1f0-5b2e-4d7a-8e6f-1a2b3c4d5e6f',
      at: '2026-11-30T06:02:58.000Z',
      service: 'order-service',
      kind: 'config',
      ref: 'lambda:UpdateFunctionConfiguration20150331v2',
      actor: 'arn:aws-cn:sts::111122223333:assumed-role/OpsDeployer/wang.wei',
      summary: 'lambda.amazonaws.com UpdateFunctionConfiguration20150331v2 functionName=order-service-checkout',
      url: 'https://cn-north-1.console.amazonaws.cn/cloudtrail/home?region=cn-north-1#/events/c9d3a1f0-5b2e-4d7a-8e6f-1a2b3c4d5e6f',
    });
    // Only names of what changed are kept from the request, never a value it set.
    expect(JSON.stringify(change)).not.toContain('HIDDEN_DUE_TO_SECURITY_REASONS');
  });

  it('records the same event delivered again (EventBridge, Lambda’s retries) once', async () => {
    const before = await items();
    expect(await deliver(EVENT)).toEqual({ outcome: 'DUPLICATE', changeId: expect.stringMatching(/^chg_/) });
    expect(await items()).toEqual(before);
  });

  it('records nothing for a read-only, failed, noise or non-management call', async () => {
    await ignored(variant({ readOnly: true, eventName: 'GetFunction' }), 'NOT_A_CHANGE');
    await ignored(variant({ errorCode: 'AccessDenied' }), 'NOT_A_CHANGE');
    await ignored(variant({ eventSource: 'sts.amazonaws.com', eventName: 'AssumeRole' }), 'NOT_A_CHANGE');
    await ignored(variant({ managementEvent: false }), 'NOT_A_CHANGE');
  });

  it('maps by account and region, which the envelope and the call must both say', async () => {
    await ignored(variant({}, { account: '999988887777' }), 'UNMAPPED');
    await ignored(variant({ recipientAccountId: '999988887777' }), 'UNMAPPED');
    await ignored(variant({ awsRegion: 'cn-northwest-1' }, { region: 'cn-northwest-1' }), 'UNMAPPED');
    await ignored(variant({ awsRegion: 'cn-northwest-1' }), 'UNMAPPED');
    // The second mapping takes only RDS calls of its account.
    const lambdaOfE2002 = variant({ recipientAccountId: '444455556666' }, { account: '444455556666' });
    await ignored(lambdaOfE2002, 'UNMAPPED');
    const rds = variant(
      { recipientAccountId: '444455556666', eventSource: 'rds.amazonaws.com', eventName: 'ModifyDBInstance' },
      { account: '444455556666', region: 'cn-northwest-1' },
    );
    (rds.detail as Record<string, unknown>).awsRegion = 'cn-northwest-1';
    expect(await deliver(rds)).toMatchObject({ outcome: 'RECORDED' });
    expect((await items()).filter((item) => item.pk === 'CHANGES#E2002' && item.entity === 'change')).toMatchObject([
      { kind: 'infra', service: null, ref: 'rds:ModifyDBInstance' },
    ]);
  });

  it('records nothing for an event of another shape, and never throws on it', async () => {
    await ignored({ 'detail-type': 'CloudWatch Alarm State Change', detail: {} }, 'NOT_A_CHANGE');
    await ignored(variant({ eventTime: 'yesterday' }), 'NOT_A_CHANGE');
    await ignored(null, 'NOT_A_CHANGE');
  });
});
