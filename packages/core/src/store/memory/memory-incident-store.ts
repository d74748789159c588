import {
  type IncidentStore,
  incidentEventsPartitionKey,
  incidentKey,
  MAX_STORED_INCIDENT_EVENTS,
  webhookEventKey,
} from '../incident-store.ts';
import { incidentEventItem, incidentEventOf, incidentOf, newIncidentItem } from '../items/incident-item.ts';
import type { Item } from '../items/item.ts';

export type MemoryIncidentStore = IncidentStore & { readonly items: ReadonlyMap<string, Item> };

/**
 * The IncidentStore in memory, with the DynamoDB adapter's behaviour (same items, same conditions); the shared
 * contract suite (`test/contract/incident-store-contract.ts`) runs against both.
 */
export function createMemoryIncidentStore(options: { retentionDays?: number } = {}): MemoryIncidentStore {
  const items = new Map<string, Item>();
  const keyOf = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;
  const ttl = (at: number) => Math.floor(at / 1_000) + (options.retentionDays ?? 90) * 86_400;
  const tick = () => Promise.resolve();
  return {
    items,
    async getIncident(ref) {
      await tick();
      const item = items.get(keyOf(incidentKey(ref)));
      return item === undefined ? null : incidentOf(item);
    },
    async openIncident(ref, claim) {
      const item = newIncidentItem(ref, claim, ttl(claim.at));
      await tick();
      const existing = items.get(keyOf(item));
      if (existing !== undefined) return { opened: false, incident: incidentOf(existing) };
      items.set(keyOf(item), item);
      return { opened: true };
    },
    async reopenIncident(seen, claim) {
      await tick();
      const key = keyOf(incidentKey(seen));
      const item = items.get(key);
      if (item === undefined || item.run_id !== seen.runId || item.last_event_at !== seen.lastEventAt) return false;
      const at = new Date(claim.at).toISOString();
      const { resolved_at: _, ...firing } = item;
      items.set(key, {
        ...firing,
        run_id: claim.runId,
        opened_at: at,
        last_event_at: at,
        event_count: 0,
        run_count: Number(item.run_count) + 1,
        ttl: ttl(claim.at),
      });
      return true;
    },
    async attachEvent(ref, runId, event) {
      await tick();
      const key = keyOf(incidentKey(ref));
      const item = items.get(key);
      if (item === undefined || item.run_id !== runId) return null;
      const sequence = Number(item.event_count) + 1;
      const at = new Date(event.at).toISOString();
      const { resolved_at: resolvedAt, ...rest } = item;
      const kept = event.kind === 'ACKNOWLEDGED' && resolvedAt !== undefined;
      const resolved = event.kind === 'RESOLVED' ? { resolved_at: at } : kept ? { resolved_at: resolvedAt } : {};
      items.set(key, { ...rest, ...resolved, event_count: sequence, last_event_at: at } as Item);
      if (sequence <= MAX_STORED_INCIDENT_EVENTS) {
        const stored = incidentEventItem(runId, sequence, event, ttl(event.at));
        items.set(keyOf(stored), stored);
      }
      return sequence;
    },
    async releaseIncident(ref, runId, previous) {
      await tick();
      const key = keyOf(incidentKey(ref));
      const item = items.get(key);
      if (item?.run_id !== runId) return;
      if (previous !== undefined) {
        const { resolved_at: _, ...rest } = item;
        items.set(key, {
          ...rest,
          ...(previous.resolvedAt === null ? {} : { resolved_at: previous.resolvedAt }),
          run_id: previous.runId,
          opened_at: previous.openedAt,
          last_event_at: previous.lastEventAt,
          event_count: previous.eventCount,
          run_count: previous.runCount,
        });
      } else if (item.run_count === 1) items.delete(key);
    },
    async listIncidentEvents(runId, limit = MAX_STORED_INCIDENT_EVENTS) {
      await tick();
      const pk = incidentEventsPartitionKey(runId);
      return [...items.values()]
        .filter((item) => item.pk === pk)
        .sort((a, b) => (a.sk < b.sk ? -1 : 1))
        .slice(0, Math.min(Math.max(1, limit), MAX_STORED_INCIDENT_EVENTS))
        .map(incidentEventOf);
    },
    async claimWebhookEvent(source, eventId, claim) {
      await tick();
      const key = webhookEventKey(source, eventId);
      const existing = items.get(keyOf(key));
      if (existing !== undefined && Number(existing.ttl) >= Math.floor(claim.at / 1_000)) return false;
      items.set(keyOf(key), {
        ...key,
        entity: 'webhook_event',
        schema_version: 1,
        source,
        ttl: Math.ceil(claim.expiresAt / 1_000),
      });
      return true;
    },
    async releaseWebhookEvent(source, eventId) {
      await tick();
      items.delete(keyOf(webhookEventKey(source, eventId)));
    },
  };
}
