import { createMemoryRunStore } from '@diagnosis/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliverRunResult } from '../../../../functions/delivery/deliver-run-result.ts';
import type { DestinationSender } from '../../../../functions/delivery/destination-senders.ts';
import type { ResolvedDestination } from '../../../../functions/delivery/destinations.ts';
import { createMemoryDeliveryStore } from '../../../../functions/delivery/memory-delivery-store.ts';
import { deliveredEnvelope } from '../../../support/delivery-events.ts';
import { outcomeOf } from '../../../support/finished-runs.ts';
import { T0 } from '../../../support/run-fixtures.ts';

const ENTERPRISES = ['E1001', 'E2002', 'E3003', 'E4004'];
const enterprise = fc.constantFrom(...ENTERPRISES);
const destination = fc.record({
  id: fc.constantFrom('oncall', 'itsm', 'ops-mail', 'a', 'b'),
  type: fc.constantFrom('slack' as const, 'sns' as const, 'webhook' as const),
});
const config = fc.dictionary(enterprise, fc.uniqueArray(destination, { selector: (item) => item.id, maxLength: 4 }));
const run = fc.record({
  enterpriseId: enterprise,
  kind: fc.constantFrom('PUBLISHED' as const, 'FALLBACK' as const, 'FAILED' as const, 'CANCELLED' as const),
  claimed: fc.option(enterprise, { nil: undefined }),
  receiveCount: fc.integer({ min: 1, max: 5 }),
  fails: fc.boolean(),
});

/** Each destination's address names its owner, so a delivery anywhere else is visible. */
function resolve(enterpriseId: string, item: { id: string; type: 'slack' | 'sns' | 'webhook' }): ResolvedDestination {
  const address = `https://receiver.example/${enterpriseId}/${item.id}`;
  if (item.type === 'sns')
    return { id: item.id, type: 'sns', topicArn: `arn:aws:sns:eu-west-1:123456789012:${enterpriseId}-${item.id}` };
  if (item.type === 'slack') return { id: item.id, type: 'slack', url: address };
  return { id: item.id, type: 'webhook', url: address, signingKey: `key-${enterpriseId}` };
}
const ownerOf = (target: ResolvedDestination) =>
  target.type === 'sns'
    ? target.topicArn.split(':').at(-1)?.split('-')[0]
    : target.type === 'pagerduty'
      ? target.from.split('@')[0]
      : target.url.split('/')[3];

describe('deliverRunResult', () => {
  it("never sends a result, or any event, to another enterprise's destination (property over configs and runs)", async () => {
    await fc.assert(
      fc.asyncProperty(config, fc.array(run, { minLength: 1, maxLength: 8 }), async (destinations, runs) => {
        const store = createMemoryRunStore({ now: () => T0 });
        const deliveries = createMemoryDeliveryStore();
        const directory = new Map(
          Object.entries(destinations).map(([id, list]) => [id, list.map((item) => resolve(id, item))]),
        );
        for (const [index, spec] of runs.entries()) {
          const runId = `run-${index}`;
          await store.queueRun({
            runId,
            sessionId: 's',
            enterpriseId: spec.enterpriseId,
            query: 'q',
            continueSession: false,
          });
          await store.claimQueuedRun(runId, T0 + 60_000);
          await store.completeRun(runId, outcomeOf(spec.kind));
          const stored = await store.getRun(runId);
          if (stored === null || stored.status === 'QUEUED' || stored.status === 'RUNNING')
            throw new Error('not ended');
          const envelope = deliveredEnvelope({ ...stored, status: stored.status });
          const claimed = spec.claimed ?? spec.enterpriseId;
          const body = JSON.stringify({ ...envelope, detail: { ...envelope.detail, enterpriseId: claimed } });
          const sent: { owner: string | undefined; enterpriseId: string }[] = [];
          const send: DestinationSender = async (target, delivered) => {
            sent.push({ owner: ownerOf(target), enterpriseId: delivered.detail.enterpriseId });
            return spec.fails ? { ok: false, code: 'HTTP_500' } : { ok: true };
          };
          const report = await deliverRunResult(
            body,
            { receiveCount: spec.receiveCount, maxReceives: 5 },
            { runs: store, deliveries, destinations: directory, send, now: () => T0, leaseMs: 1 },
          );
          for (const delivery of sent) {
            expect(delivery).toEqual({ owner: spec.enterpriseId, enterpriseId: spec.enterpriseId });
          }
          if (claimed !== spec.enterpriseId) {
            expect(report).toEqual({ kind: 'DROPPED', code: 'ENTERPRISE_MISMATCH' });
            expect(sent).toEqual([]);
          } else {
            expect(sent).toHaveLength(directory.get(spec.enterpriseId)?.length ?? 0);
          }
          // Every record of the run is one of its own enterprise's destinations.
          const own = new Set((directory.get(spec.enterpriseId) ?? []).map((target) => target.id));
          for (const record of await deliveries.listDeliveries(stored))
            expect(own.has(record.destinationId)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
