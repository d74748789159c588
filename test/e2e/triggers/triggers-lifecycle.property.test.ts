/**
 * Hostile sender texts against the webhook route's incident rules (issue 32), through the real webhook handler on
 * DynamoDB Local: Alertmanager groups whose `groupKey`, `alertname` and annotations are any Unicode text (control and
 * line-separator characters, `@`, quotes, markup, the 1,024-character cap and past it), notified again and again with
 * their alerts firing and resolving in any order. Whatever the text and the order: every notification is answered 2xx,
 * a group never gets a second run while it is open, and the same bytes again are a 200 `DUPLICATE` that writes
 * nothing. And any `Content-Type` that is not JSON is refused 415 before anything is written. Fixed seeds.
 */

import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { parseTriggerSettings } from '@diagnosis/core/config';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { buildTriggerDeps } from '../../../functions/triggers/trigger-setup.ts';
import { createWebhookHandler } from '../../../functions/triggers/webhook-handler.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';

const TOKEN = 'am-property-token-0123456789';
const dynamo = localDynamoClient();
const documents = DynamoDBDocumentClient.from(dynamo);
const { workflow, started } = recordingWorkflow();
let table: Awaited<ReturnType<typeof createTestTable>>;
let handler: ReturnType<typeof createWebhookHandler>;
let clock = Date.parse('2026-11-30T06:06:35.000Z');

beforeAll(async () => {
  table = await createTestTable(dynamo);
  const settings = parseTriggerSettings({
    DIAGNOSIS_TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    TRIGGERS: JSON.stringify([{ source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001' }]),
    ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
  });
  const deps = await buildTriggerDeps(settings, () => clock, undefined, workflow);
  handler = createWebhookHandler(
    {
      ...deps,
      start: { ...deps.start, workflow },
      secrets: { alertmanagerToken: TOKEN, pagerdutySecrets: undefined },
    },
    createObservability('TriggerWebhook', () => undefined),
  );
});
afterAll(async () => {
  await table.drop();
  dynamo.destroy();
});

async function items() {
  const page = await documents.send(new ScanCommand({ TableName: table.tableName, ConsistentRead: true }));
  return (page.Items ?? []).map((item) => `${item.pk}|${item.sk}|${JSON.stringify(item)}`).sort();
}

async function post(body: string, contentType = 'application/json') {
  const event = httpEvent({
    path: '/triggers/alertmanager',
    iam: false,
    body,
    headers: { 'content-type': contentType, authorization: `Bearer ${TOKEN}` },
    pathParameters: { source: 'alertmanager' },
  });
  const response = (await handler(event as never, lambdaContext(30_000))) as { statusCode: number; body: string };
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

/**
 * Any text a sender could put in a label, with the characters that break naive handling over-represented, and the
 * given lengths (a cap and one past it) as they are.
 */
const hostileText = (maxLength: number, lengths: readonly number[] = []) =>
  fc.oneof(
    fc.string({ unit: 'binary', maxLength }),
    fc.string({
      unit: fc.constantFrom(
        '@',
        '"',
        '\\',
        '\u0000',
        '\u001b',
        '\n',
        '\u2028',
        '\u202e',
        '<',
        '}',
        '{',
        '#',
        '支',
        '𝐀',
      ),
      maxLength,
    }),
    ...lengths.map((length) => fc.constant('x'.repeat(length))),
  );

describe('the webhook route under hostile Alertmanager groups', () => {
  it('answers every notification 2xx, starts at most one run per open group, and a resend is a DUPLICATE', async () => {
    let group = 0;
    await fc.assert(
      fc.asyncProperty(
        // NOTE: the group key around its 1,024-character cap; titles within 256 characters (longer ones are issue 32
        // item 4's, another change's test).
        hostileText(1_100, [1_015, 1_016, 1_100]),
        hostileText(256, [256]),
        hostileText(2_000, [2_000]),
        fc.array(fc.record({ firing: fc.subarray([0, 1, 2]), minutesLater: fc.nat(600) }), {
          minLength: 1,
          maxLength: 5,
        }),
        async (groupKeyText, alertname, summary, notifications) => {
          group += 1;
          const groupKey = `${group}:${groupKeyText}`;
          const alerts = [0, 1, 2].map((index) => ({
            labels: { alertname, team: 'payments', instance: `pg-${index}` },
            annotations: { summary },
            startsAt: new Date(clock - (3 - index) * 60_000).toISOString(),
          }));
          const runsBefore = started.length;
          let runId: string | undefined;
          for (const step of notifications) {
            clock += step.minutesLater * 60_000;
            // NOTE: as Alertmanager sends it: the group's alerts, firing ones with the zero endsAt, the others
            // resolved (a resolved alert appears in one notification at least).
            const shown = alerts.map((alert, position) =>
              step.firing.includes(position)
                ? { ...alert, status: 'firing', endsAt: '0001-01-01T00:00:00Z' }
                : { ...alert, status: 'resolved', endsAt: new Date(clock).toISOString() },
            );
            const body = JSON.stringify({
              version: '4',
              groupKey,
              status: step.firing.length > 0 ? 'firing' : 'resolved',
              receiver: 'diagnosis',
              groupLabels: { alertname },
              commonLabels: { alertname, team: 'payments' },
              commonAnnotations: { summary },
              alerts: shown,
              truncatedAlerts: 0,
            });
            const answer = await post(body);
            expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(200);
            expect(answer.status).toBeLessThan(300);
            // Only the group's first firing notification may start its run (the recording workflow's runs stay open):
            // every later one, resolved, mixed or firing again, is recorded on it.
            if (answer.body.outcome === 'STARTED') {
              expect(runId).toBeUndefined();
              runId = String(answer.body.runId);
            } else if (runId !== undefined && answer.body.outcome === 'ATTACHED') {
              expect(answer.body.runId).toBe(runId);
            } else if (runId !== undefined) {
              // The same bytes as an earlier notification within the hour (these alerts keep their startsAt; a real
              // one that fires again gets a new one) are a duplicate.
              expect(answer.body.outcome).toBe('DUPLICATE');
            }
            // Alertmanager's repeat of the same notification, before anything changed: a duplicate, nothing written.
            const before = await items();
            expect(await post(body)).toEqual({ status: 200, body: { outcome: 'DUPLICATE' } });
            expect(await items()).toEqual(before);
          }
          expect(started.length - runsBefore).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 25, seed: 32, endOnFailure: true },
    );
  }, 120_000);

  it('refuses any Content-Type that is not JSON with 415, writing nothing', async () => {
    const body = JSON.stringify({ version: '4' });
    const notJson = fc
      .oneof(
        fc.string({ unit: 'binary', maxLength: 80 }),
        fc.constantFrom('text/json', 'json', 'application/jso', 'multipart/form-data', 'application/x-json'),
      )
      // NOTE: an oracle of its own, not the code's: nothing that starts as application/json.
      .filter((type) => !/^\s*application\/json/i.test(type) && !/[\r\n]/.test(type));
    const before = await items();
    await fc.assert(
      fc.asyncProperty(notJson, async (contentType) => {
        const answer = await post(body, contentType);
        expect(answer.status).toBe(415);
        expect(answer.body).toMatchObject({ error: { code: 'WEBHOOK_UNSUPPORTED_MEDIA_TYPE' } });
      }),
      { numRuns: 60, seed: 415 },
    );
    expect(await items()).toEqual(before);
  });
});
