import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_RUN_LIMITS, triggerMappingsSchema } from '@diagnosis/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parsePagerDutyWebhook } from '../../../../functions/triggers/pagerduty-webhook.ts';

const FIXTURE = readFileSync(
  resolve(import.meta.dirname, '../../../fixtures/triggers/pagerduty-incident-triggered.json'),
  'utf8',
);
const config = {
  mappings: v.parse(triggerMappingsSchema, [{ source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001' }]),
  lookbackMs: 1_800_000,
  timeZone: 'UTC',
  maxQueryBytes: DEFAULT_RUN_LIMITS.maxQueryBytes,
};
const NOW = Date.parse('2026-11-30T06:06:35.000Z');
const ofType = (type: string) => {
  const body = JSON.parse(FIXTURE);
  body.event.event_type = type;
  return parsePagerDutyWebhook(body, config, NOW);
};

describe('parsePagerDutyWebhook', () => {
  it.each([
    ['incident.triggered', 'TRIGGERED'],
    ['incident.reopened', 'REOPENED'],
    ['incident.acknowledged', 'ACKNOWLEDGED'],
    ['incident.resolved', 'RESOLVED'],
  ])('reads %s as %s of the incident keyed by its id', (type, kind) => {
    expect(ofType(type)).toMatchObject({ kind: 'incident', event: { kind, ref: { incidentKey: 'Q2W8ZKH3R5TB7Y' } } });
  });

  it.each([
    'incident.annotated',
    'incident.priority_updated',
    'constructor',
    '__proto__',
    'toString',
    'hasOwnProperty',
  ])('ignores %s as NOT_FIRING (an event type that says nothing, or a name of Object’s prototype)', (type) => {
    expect(ofType(type)).toEqual({ kind: 'ignored', code: 'NOT_FIRING' });
  });
});
