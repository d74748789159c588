import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { alarmSettingsSchema, buildAlarmDefinitions, type MonitoredResources } from '../../../deploy/alarms.ts';
import { buildDashboardBody } from '../../../deploy/dashboard.ts';
import { deliveryTopics, runtimeDestinations } from '../../../deploy/delivery.ts';
import { parseStageConfig, StageConfigError } from '../../../deploy/stage-config.ts';
import { DELIVERY_METRICS, deliveryBackoffSeconds } from '../../../functions/delivery/delivery-metric-names.ts';
import { parseDeliverSettings, parsePublishSettings } from '../../../functions/delivery/delivery-settings.ts';
import {
  DeliveryConfigError,
  deliverySettingsSchema,
  destinationSecretNames,
  resolveDestinations,
  revealEnterprises,
  runtimeDestinationsSchema,
} from '../../../functions/delivery/destinations.ts';

const root = mkdtempSync(join(tmpdir(), 'delivery-config-'));
mkdirSync(join(root, 'ops'));
writeFileSync(join(root, 'ops/catalog.json'), '[]');
const settings = {
  KNOWLEDGE_BACKEND: 'bedrock',
  BEDROCK_KNOWLEDGE_BASE_ID: 'KB12345678',
  LOGS_BACKEND: 'cloudwatch',
  LOGS_GROUPS: { 'order-service': ['/ecs/order'] },
  MYSQL_CATALOG_PATH: 'ops/catalog.json',
  // NOTE: a prod stage deploys only with a tenant access policy (issue 19).
  TENANT_ACCESS: [{ principal: '123456789012', enterprises: ['E1001'] }],
};
const valid = {
  destinations: {
    E1001: [
      { id: 'oncall', type: 'slack', secret: 'DestinationSlackE1001' },
      { id: 'ops-mail', type: 'sns' },
      { id: 'itsm', type: 'webhook', url: 'https://itsm.example.com/hooks/d?x=1', secret: 'DestinationHookE1001' },
    ],
  },
};
const stage = (delivery: unknown) => () => parseStageConfig(root, 'prod', 'deploy/prod.json', { settings, delivery });
const refusedKeys = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof StageConfigError) return error.message;
    throw error;
  }
  return 'accepted';
};

describe('the stage file’s delivery section', () => {
  it('accepts destinations per enterprise and lists the secrets and topics to create', () => {
    const config = stage(valid)();
    expect(destinationSecretNames(config.delivery)).toEqual(['DestinationHookE1001', 'DestinationSlackE1001']);
    expect(deliveryTopics(config.delivery)).toEqual([
      { resourceName: 'DeliveryE1001OpsMail', enterpriseId: 'E1001', destinationId: 'ops-mail', emails: [] },
    ]);
    expect(runtimeDestinations(config.delivery, (name) => `arn:${name}`).E1001?.[1]).toEqual({
      id: 'ops-mail',
      type: 'sns',
      topicArn: 'arn:DeliveryE1001OpsMail',
    });
    expect(stage(undefined)().delivery).toEqual({ destinations: {}, reveal: {} });
  });

  it.each([
    [
      'a Slack URL written into the file',
      { E1001: [{ id: 'a', type: 'slack', url: 'https://hooks.slack.com/services/T/B/x' }] },
    ],
    ['a secret named like another resource', { E1001: [{ id: 'a', type: 'slack', secret: 'ModelApiKey' }] }],
    [
      'a plain http webhook',
      { E1001: [{ id: 'a', type: 'webhook', url: 'http://itsm.example.com/', secret: 'DestinationA' }] },
    ],
    [
      'credentials in a webhook URL',
      { E1001: [{ id: 'a', type: 'webhook', url: 'https://u:p@x.example/', secret: 'DestinationA' }] },
    ],
    ['a lower-case enterprise id', { e1001: [{ id: 'a', type: 'sns' }] }],
    ['an unknown destination type', { E1001: [{ id: 'a', type: 'pagerduty' }] }],
    ['an id that could break a key', { E1001: [{ id: 'A#B', type: 'sns' }] }],
    [
      'a repeated id',
      {
        E1001: [
          { id: 'a', type: 'sns' },
          { id: 'a', type: 'sns' },
        ],
      },
    ],
    ['more than ten destinations', { E1001: Array.from({ length: 11 }, (_, i) => ({ id: `d${i}`, type: 'sns' })) }],
  ])('refuses %s, naming the delivery key and never a value', (_name, destinations) => {
    const message = refusedKeys(stage({ destinations }));
    expect(message).toContain('deploy/prod.json: invalid or unknown keys: delivery');
    expect(message).not.toContain('hooks.slack.com');
    expect(message).not.toContain('u:p');
  });

  it('refuses an unknown key of the section', () => {
    expect(refusedKeys(stage({ ...valid, retries: 9 }))).toContain('delivery');
  });

  it('accepts a reveal per enterprise (issue 22) and lists the enterprises that opted in', () => {
    const config = stage({ ...valid, reveal: { E1001: true } })();
    expect(revealEnterprises(config.delivery)).toEqual(['E1001']);
    expect(revealEnterprises(stage({ ...valid, reveal: { E1001: false } })().delivery)).toEqual([]);
    expect(revealEnterprises(stage(valid)().delivery)).toEqual([]);
  });

  it.each([
    ['a string for true', { E1001: 'true' }],
    ['a number', { E1001: 1 }],
    ['a nested object', { E1001: { slack: true } }],
    ['a bare boolean for every enterprise', true],
    ['a lower-case enterprise id', { e1001: true }],
    ['an enterprise without destinations', { E2002: true }],
  ])('refuses a reveal with %s, naming the delivery key', (_name, reveal) => {
    expect(refusedKeys(stage({ ...valid, reveal }))).toContain('deploy/prod.json: invalid or unknown keys: delivery');
  });
});

describe('resolveDestinations', () => {
  const runtime = v.parse(runtimeDestinationsSchema, {
    E1001: [
      { id: 'oncall', type: 'slack', secret: 'DestinationSlackE1001' },
      { id: 'itsm', type: 'webhook', url: 'https://itsm.example.com/h', secret: 'DestinationHookE1001' },
    ],
  });

  it('reads each secret by name, and refuses an unset secret or a Slack URL that is not https, naming only the secret', () => {
    const secrets: Record<string, string> = {
      DestinationSlackE1001: 'https://hooks.slack.com/services/T0/B0/abc',
      DestinationHookE1001: 'signing-key',
    };
    const directory = resolveDestinations(runtime, (name) => secrets[name]);
    expect(directory.get('E1001')).toEqual([
      { id: 'oncall', type: 'slack', url: 'https://hooks.slack.com/services/T0/B0/abc' },
      { id: 'itsm', type: 'webhook', url: 'https://itsm.example.com/h', signingKey: 'signing-key' },
    ]);
    expect(directory.get('constructor')).toBeUndefined();
    expect(() => resolveDestinations(runtime, () => undefined)).toThrow(
      new DeliveryConfigError('secret DestinationSlackE1001 is unset'),
    );
    const insecure: Record<string, string> = {
      ...secrets,
      DestinationSlackE1001: 'http://hooks.slack.com/services/secret-part',
    };
    expect(() => resolveDestinations(runtime, (name) => insecure[name])).toThrow(
      'secret DestinationSlackE1001 is not an https URL',
    );
    try {
      resolveDestinations(runtime, (name) => insecure[name]);
    } catch (error) {
      expect(String(error)).not.toContain('secret-part');
    }
  });
});

describe('the delivery functions’ settings', () => {
  it('parse the bus, links, price and destinations, and refuse bad values naming the key only', () => {
    expect(
      parsePublishSettings({
        DIAGNOSIS_RESULTS_BUS: 'bus',
        DELIVERY_PRICE: '{"input":1,"cachedInput":0.1,"output":2}',
      }),
    ).toEqual({
      DIAGNOSIS_RESULTS_BUS: 'bus',
      DELIVERY_PRICE: { input: 1, cachedInput: 0.1, output: 2 },
    });
    expect(() => parsePublishSettings({})).toThrow(expect.objectContaining({ keys: ['DIAGNOSIS_RESULTS_BUS'] }));
    expect(() => parsePublishSettings({ DIAGNOSIS_RESULTS_BUS: 'b', DIAGNOSIS_API_URL: 'http://x' })).toThrow(
      expect.objectContaining({ keys: ['DIAGNOSIS_API_URL'] }),
    );
    const deliver = parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table' });
    expect(deliver).toMatchObject({ DELIVERY_DESTINATIONS: {}, DELIVERY_TIMEOUT_MS: 10_000 });
    expect(() =>
      parseDeliverSettings({
        DIAGNOSIS_TABLE_NAME: 'table',
        DELIVERY_DESTINATIONS: '{"E1001":[{"id":"x","type":"slack","secret":"https://hooks"}]}',
      }),
    ).toThrow(expect.objectContaining({ keys: ['DELIVERY_DESTINATIONS'] }));
    expect(() => parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table', DELIVERY_DESTINATIONS: '{not json' })).toThrow(
      expect.objectContaining({ keys: ['DELIVERY_DESTINATIONS'] }),
    );
    expect(deliver.DELIVERY_REVEAL).toEqual([]);
    expect(
      parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table', DELIVERY_REVEAL: '["E1001"]' }).DELIVERY_REVEAL,
    ).toEqual(['E1001']);
    for (const reveal of ['true', '{"E1001":true}', '["e1001"]']) {
      expect(() => parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table', DELIVERY_REVEAL: reveal })).toThrow(
        expect.objectContaining({ keys: ['DELIVERY_REVEAL'] }),
      );
    }
    expect(() => parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table', DELIVERY_TIMEOUT_MS: '99999' })).toThrow(
      expect.objectContaining({ keys: ['DELIVERY_TIMEOUT_MS'] }),
    );
  });

  it('keeps the delivery records RETENTION_DAYS (90 unset), refusing a value that is no number of days', () => {
    expect(parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table' }).RETENTION_DAYS).toBe(90);
    expect(parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table', RETENTION_DAYS: '30' }).RETENTION_DAYS).toBe(30);
    for (const days of ['0', '-1', '1.5', 'ninety']) {
      expect(() => parseDeliverSettings({ DIAGNOSIS_TABLE_NAME: 'table', RETENTION_DAYS: days })).toThrow(
        expect.objectContaining({ keys: ['RETENTION_DAYS'] }),
      );
    }
  });
  it('accept the schema’s own stage section type', () => {
    expect(v.is(deliverySettingsSchema, valid)).toBe(true);
  });
});

describe('deliveryBackoffSeconds', () => {
  it('doubles from 30 s and stops at SQS’s 15 minutes', () => {
    expect([1, 2, 3, 4, 5, 6, 10].map(deliveryBackoffSeconds)).toEqual([30, 60, 120, 240, 480, 900, 900]);
  });
});

describe('buildAlarmDefinitions and buildDashboardBody with the delivery', () => {
  const resources: MonitoredResources<string> = {
    region: 'eu-west-1',
    functions: [{ id: 'Diagnose', name: 'd' }],
    runFunctionId: 'Diagnose',
    tableName: 't',
    globalIndexNames: [],
    stateMachines: [],
    apiId: 'a',
    topicArn: 'topic',
    delivery: { queueName: 'delivery-queue', deadLetterQueueName: 'dead-letters' },
  };
  const defaults = v.parse(alarmSettingsSchema, {});

  it('alarm on the metrics the delivery functions emit and on the queues, with the stage’s thresholds', () => {
    const alarms = buildAlarmDefinitions(resources, { ...defaults, deliveryAttemptsFailed: 9 });
    const byId = Object.fromEntries(alarms.map((alarm) => [alarm.id, alarm.args]));
    expect(byId.AlarmDeliveriesDeadLettered?.metricQueries).toEqual([
      expect.objectContaining({
        metric: expect.objectContaining({ namespace: 'Diagnosis', metricName: DELIVERY_METRICS.deadLettered }),
      }),
    ]);
    expect(byId.AlarmDeliveryAttemptsFailed?.threshold).toBe(9);
    expect(byId.AlarmDeliveryDeadLetterQueueDepth?.metricQueries[0]).toMatchObject({
      metric: {
        namespace: 'AWS/SQS',
        metricName: 'ApproximateNumberOfMessagesVisible',
        dimensions: { QueueName: 'dead-letters' },
      },
    });
    expect(byId.AlarmDeliveryQueueAge?.threshold).toBe(1_800);
    expect(byId.AlarmResultEventsPublishFailed).toBeDefined();
    expect(
      buildAlarmDefinitions({ ...resources, delivery: undefined } as never, defaults).some((alarm) =>
        alarm.id.includes('Deliver'),
      ),
    ).toBe(false);
  });

  it('shows result events, deliveries and the queues on the dashboard', () => {
    const text = JSON.stringify(buildDashboardBody(resources, defaults));
    for (const name of Object.values(DELIVERY_METRICS)) expect(text).toContain(name);
    expect(text).toContain('dead-letters');
  });
});
