import type { IncidentEventKind } from '@diagnosis/core';
import { type IncidentRef, type IncidentStore, MAX_STORED_INCIDENT_EVENTS } from '@diagnosis/core/store';
import { afterEach, describe, expect, it } from 'vitest';

export type IncidentStoreFactory = () => Promise<{ store: IncidentStore; cleanup(): Promise<void> }>;

const T0 = Date.parse('2026-11-30T06:05:00Z');
let counter = 0;
const newRef = (): IncidentRef => ({
  enterpriseId: 'E1001',
  source: 'cloudwatch',
  incidentKey: `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:a-${Date.now().toString(36)}-${counter++}@t`,
});
const event = (eventId: string, at = T0, kind: IncidentEventKind = 'FIRING') => ({
  source: 'cloudwatch' as const,
  kind,
  eventId,
  title: 'a',
  at,
});

/** One contract for every IncidentStore: the DynamoDB adapter and its in-memory twin. */
export function describeIncidentStoreContract(label: string, factory: IncidentStoreFactory): void {
  describe(`IncidentStore contract: ${label}`, () => {
    let current: Awaited<ReturnType<IncidentStoreFactory>> | undefined;
    const make = async () => {
      current = await factory();
      return current.store;
    };
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });

    it('opens an incident once: a second claim of the same incident fails', async () => {
      const store = await make();
      const ref = newRef();
      expect(await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 })).toEqual({ opened: true });
      const refused = await store.openIncident(ref, { runId: 'run-b', sessionId: 's2', at: T0 + 1_000 });
      expect(await store.getIncident(ref)).toMatchObject({ runId: 'run-a', eventCount: 0, runCount: 1 });
      // The refused claim wrote nothing and answers with the incident as stored, as a read would.
      expect(refused).toEqual({ opened: false, incident: await store.getIncident(ref) });
    });

    it('answers a refused claim with the incident as it is after its events, not as it was opened', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 });
      await store.attachEvent(ref, 'run-a', event('e1', T0 + 1_000, 'RESOLVED'));
      const refused = await store.openIncident(ref, { runId: 'run-b', sessionId: 's', at: T0 + 2_000 });
      expect(refused).toEqual({
        opened: false,
        incident: expect.objectContaining({ runId: 'run-a', eventCount: 1, resolvedAt: '2026-11-30T06:05:01.000Z' }),
      });
      expect(refused).toEqual({ opened: false, incident: await store.getIncident(ref) });
    });

    it('lets exactly one of many concurrent claims win', async () => {
      const store = await make();
      const ref = newRef();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          store.openIncident(ref, { runId: `run-${index}`, sessionId: 's', at: T0 }),
        ),
      );
      expect(results.filter((claim) => claim.opened)).toHaveLength(1);
      const stored = await store.getIncident(ref);
      for (const claim of results) if (!claim.opened) expect(claim.incident).toEqual(stored);
    });

    it('keys incidents by enterprise too: the same alarm for two enterprises is two incidents', async () => {
      const store = await make();
      const ref = newRef();
      expect(await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 })).toEqual({ opened: true });
      expect(
        await store.openIncident({ ...ref, enterpriseId: 'E2002' }, { runId: 'run-b', sessionId: 's', at: T0 }),
      ).toEqual({ opened: true });
    });

    it('attaches events to the incident’s run only, numbered in order, and lists them', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 });
      expect(await store.attachEvent(ref, 'run-a', event('e1', T0 + 1_000))).toBe(1);
      expect(await store.attachEvent(ref, 'run-a', event('e2', T0 + 2_000))).toBe(2);
      expect(await store.attachEvent(ref, 'run-other', event('e3'))).toBeNull();
      expect(await store.attachEvent(newRef(), 'run-a', event('e4'))).toBeNull();
      expect((await store.listIncidentEvents('run-a')).map((stored) => [stored.sequence, stored.eventId])).toEqual([
        [1, 'e1'],
        [2, 'e2'],
      ]);
      expect(await store.getIncident(ref)).toMatchObject({ eventCount: 2, lastEventAt: '2026-11-30T06:05:02.000Z' });
    });

    it('marks the incident resolved on a RESOLVED event, keeps the mark on an acknowledgement, clears it on firing', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 });
      expect(await store.getIncident(ref)).toMatchObject({ resolvedAt: null });
      await store.attachEvent(ref, 'run-a', event('e1', T0 + 1_000, 'RESOLVED'));
      expect(await store.getIncident(ref)).toMatchObject({ resolvedAt: '2026-11-30T06:05:01.000Z', eventCount: 1 });
      await store.attachEvent(ref, 'run-a', event('e2', T0 + 2_000, 'ACKNOWLEDGED'));
      expect(await store.getIncident(ref)).toMatchObject({ resolvedAt: '2026-11-30T06:05:01.000Z' });
      await store.attachEvent(ref, 'run-a', event('e3', T0 + 3_000, 'FIRING'));
      expect(await store.getIncident(ref)).toMatchObject({ resolvedAt: null, lastEventAt: '2026-11-30T06:05:03.000Z' });
      await store.attachEvent(ref, 'run-a', event('e4', T0 + 4_000, 'RESOLVED'));
      const resolved = await store.getIncident(ref);
      if (resolved === null) throw new Error('the incident must exist');
      expect(await store.reopenIncident(resolved, { runId: 'run-b', at: T0 + 5_000 })).toBe(true);
      expect(await store.getIncident(ref)).toMatchObject({ runId: 'run-b', resolvedAt: null });
      expect((await store.listIncidentEvents('run-a')).map((stored) => stored.kind)).toEqual([
        'RESOLVED',
        'ACKNOWLEDGED',
        'FIRING',
        'RESOLVED',
      ]);
    });

    it('reopens an incident only while it is as the caller saw it', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 });
      const seen = await store.getIncident(ref);
      if (seen === null) throw new Error('the incident must exist');
      await store.attachEvent(ref, 'run-a', event('e1', T0 + 1_000));
      expect(await store.reopenIncident(seen, { runId: 'run-b', at: T0 + 2_000 })).toBe(false);
      const now = await store.getIncident(ref);
      if (now === null) throw new Error('the incident must exist');
      expect(await store.reopenIncident(now, { runId: 'run-b', at: T0 + 3_000 })).toBe(true);
      expect(await store.getIncident(ref)).toMatchObject({
        runId: 'run-b',
        sessionId: 's',
        eventCount: 0,
        runCount: 2,
      });
    });

    it('releases a first claim only while it still points at that run', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 });
      await store.releaseIncident(ref, 'run-other');
      expect(await store.getIncident(ref)).not.toBeNull();
      await store.releaseIncident(ref, 'run-a');
      expect(await store.getIncident(ref)).toBeNull();
    });

    it('puts a re-fire’s incident back as it was when its claim is released, only while it points at that run', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 });
      await store.attachEvent(ref, 'run-a', event('e1', T0 + 1_000));
      const seen = await store.getIncident(ref);
      if (seen === null) throw new Error('the incident must exist');
      expect(await store.reopenIncident(seen, { runId: 'run-b', at: T0 + 900_000 })).toBe(true);
      await store.releaseIncident(ref, 'run-other', seen);
      expect(await store.getIncident(ref)).toMatchObject({ runId: 'run-b', runCount: 2 });
      await store.releaseIncident(ref, 'run-b', seen);
      expect(await store.getIncident(ref)).toEqual(seen);
    });

    it('puts a resolved incident back resolved when the claim of its re-fire is released', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-a', sessionId: 's', at: T0 });
      await store.attachEvent(ref, 'run-a', event('e1', T0 + 1_000, 'RESOLVED'));
      const resolved = await store.getIncident(ref);
      if (resolved === null) throw new Error('the incident must exist');
      expect(resolved.resolvedAt).toBe('2026-11-30T06:05:01.000Z');
      expect(await store.reopenIncident(resolved, { runId: 'run-b', at: T0 + 900_000 })).toBe(true);
      expect(await store.getIncident(ref)).toMatchObject({ resolvedAt: null });
      await store.releaseIncident(ref, 'run-b', resolved);
      expect(await store.getIncident(ref)).toEqual(resolved);
    });

    it('stores at most MAX_STORED_INCIDENT_EVENTS events and counts the rest', async () => {
      const store = await make();
      const ref = newRef();
      await store.openIncident(ref, { runId: 'run-cap', sessionId: 's', at: T0 });
      for (let index = 0; index < MAX_STORED_INCIDENT_EVENTS + 3; index += 1) {
        await store.attachEvent(ref, 'run-cap', event(`e${index}`));
      }
      expect(await store.listIncidentEvents('run-cap')).toHaveLength(MAX_STORED_INCIDENT_EVENTS);
      expect((await store.getIncident(ref))?.eventCount).toBe(MAX_STORED_INCIDENT_EVENTS + 3);
    });

    it('claims a webhook event id once until its record expires; a released one may be claimed again', async () => {
      const store = await make();
      const id = `evt-${Date.now().toString(36)}-${counter++}`;
      expect(await store.claimWebhookEvent('pagerduty', id, { at: T0, expiresAt: T0 + 60_000 })).toBe(true);
      expect(await store.claimWebhookEvent('pagerduty', id, { at: T0 + 1_000, expiresAt: T0 + 61_000 })).toBe(false);
      // Another source's event of the same id is another event.
      expect(await store.claimWebhookEvent('alertmanager', id, { at: T0, expiresAt: T0 + 60_000 })).toBe(true);
      expect(await store.claimWebhookEvent('pagerduty', id, { at: T0 + 61_000, expiresAt: T0 + 120_000 })).toBe(true);
      await store.releaseWebhookEvent('pagerduty', id);
      expect(await store.claimWebhookEvent('pagerduty', id, { at: T0 + 62_000, expiresAt: T0 + 120_000 })).toBe(true);
    });
  });
}
