import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_RUN_LIMITS, triggerMappingsSchema } from '@diagnosis/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { parseAlertmanagerWebhook } from '../../../../functions/triggers/alertmanager-webhook.ts';

const FIXTURE = readFileSync(
  resolve(import.meta.dirname, '../../../fixtures/triggers/alertmanager-firing.json'),
  'utf8',
);
const config = {
  mappings: v.parse(triggerMappingsSchema, [
    { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001' },
  ]),
  lookbackMs: 1_800_000,
  timeZone: 'UTC',
  maxQueryBytes: DEFAULT_RUN_LIMITS.maxQueryBytes,
};
const NOW = Date.parse('2026-11-30T06:06:35.000Z');
const parse = (json: unknown) => parseAlertmanagerWebhook(json, Buffer.from(JSON.stringify(json)), config, NOW);
const GROUP_KEY = '{}/{team="payments"}:{alertname="PaymentGatewayHighErrorRate"}';

describe('parseAlertmanagerWebhook', () => {
  it('keys a group’s incident by its groupKey alone, whichever of its alerts fire or resolved', () => {
    const group = JSON.parse(FIXTURE);
    const first = parse(group);
    expect(first).toMatchObject({ kind: 'incident', event: { ref: { incidentKey: GROUP_KEY }, kind: 'FIRING' } });
    // The earliest firing alert resolves while the other fires: the same incident, and this episode's start moves.
    group.alerts[1].status = 'resolved';
    group.alerts[1].endsAt = '2026-11-30T06:06:00.000Z';
    const mixed = parse(group);
    expect(mixed).toMatchObject({ kind: 'incident', event: { ref: { incidentKey: GROUP_KEY }, kind: 'FIRING' } });
    if (first.kind !== 'incident' || mixed.kind !== 'incident') throw new Error('both are incidents');
    expect(first.event.firingSince).toBe(Date.parse('2026-11-30T06:04:58.402Z'));
    expect(mixed.event.firingSince).toBe(Date.parse('2026-11-30T06:05:30.118Z'));
    expect(mixed.event.ref).toEqual(first.event.ref);
  });

  it('reads a group whose alerts all resolved as RESOLVED of the same incident', () => {
    const group = JSON.parse(FIXTURE);
    group.status = 'resolved';
    for (const alert of group.alerts) alert.status = 'resolved';
    expect(parse(group)).toMatchObject({
      kind: 'incident',
      event: { ref: { incidentKey: GROUP_KEY }, kind: 'RESOLVED' },
    });
  });

  it('refuses a group whose status disagrees with its alerts as MALFORMED_EVENT', () => {
    const resolvedButFiring = JSON.parse(FIXTURE);
    resolvedButFiring.status = 'resolved';
    expect(parse(resolvedButFiring)).toEqual({ kind: 'ignored', code: 'MALFORMED_EVENT' });
    const firingButResolved = JSON.parse(FIXTURE);
    for (const alert of firingButResolved.alerts) alert.status = 'resolved';
    expect(parse(firingButResolved)).toEqual({ kind: 'ignored', code: 'MALFORMED_EVENT' });
  });
});
