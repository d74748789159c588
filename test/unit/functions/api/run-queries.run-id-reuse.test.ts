/**
 * docs/security.md: run ids are one key for every tenant; a caller that picks another tenant's runId learns
 * "never anything of the run". The DELIVERY#<runId> records outlive the run item (their ttl counts
 * from the delivery attempt, after the run ended — and a DLQ redrive can be days later — while the run's ttl counts
 * from its creation), and `listDeliveries(runId)` does not filter by the record's enterprise. Once tenant E1001's run
 * item has expired, tenant E2002 queues a run with the same runId and `GET /runs/{runId}` shows it E1001's delivery
 * records (destination ids and types, statuses, errors, times). The same reuse opens REASONING#/PSEUDONYMS# partitions
 * when their retention is set longer than RETENTION_DAYS (the settings accept it; reveal derives keys from the runId).
 */
import { createMemoryRunStore } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createGetRunHandler } from '../../../../functions/api/run-queries.ts';
import { createMemoryDeliveryStore } from '../../../../functions/delivery/memory-delivery-store.ts';
import { createObservability } from '../../../../functions/lambda/observability.ts';
import { httpEvent, lambdaContext } from '../../../support/lambda-events.ts';

const BOB_E2002 = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/bob' };
const DAY = 86_400_000;
const POLICY = [{ principal: 'arn:aws:sts::111122223333:assumed-role/OpsE2002/*', enterprises: ['E2002'] }];

describe('a runId reused after its run item expired', () => {
  it("never shows the new tenant the old tenant's delivery records", async () => {
    const runs = createMemoryRunStore();
    const deliveries = createMemoryDeliveryStore();
    const runId = 'run-reused-1';
    // E1001's run ended and was delivered to its Slack; later its run item expired (TTL), the delivery records not yet.
    const key = {
      runId,
      enterpriseId: 'E1001',
      destinationId: 'e1001-oncall-slack',
      destinationType: 'slack' as const,
      runCreatedAt: new Date(Date.now() - 100 * DAY).toISOString(),
    };
    await deliveries.beginAttempt(key, Date.now() - 99 * DAY, 45_000);
    await deliveries.recordDelivered(key, Date.now() - 99 * DAY);
    // E2002 now queues a run under the same id (nothing stops it: the run item is gone).
    await runs.queueRun({ runId, sessionId: 's', enterpriseId: 'E2002', query: '为什么？', continueSession: false });
    const handler = createGetRunHandler(runs, {
      logger: createObservability('GetRun').logger,
      policy: POLICY,
      deliveries,
    });
    const response = (await handler(
      httpEvent({ method: 'GET', path: `/runs/${runId}`, pathParameters: { runId }, iam: BOB_E2002 }) as never,
      lambdaContext(5_000),
    )) as { statusCode: number; body: string };
    expect(response.statusCode).toBe(200);
    const body = JSON.parse(response.body) as { enterpriseId: string; delivery: unknown[] };
    expect(body.enterpriseId).toBe('E2002');
    expect(body.delivery).toEqual([]);
  });
});
