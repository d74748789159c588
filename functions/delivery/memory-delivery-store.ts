/**
 * The in-memory twin of `createDynamoDeliveryStore`, with the same conditions (the contract suite runs against
 * both): for local runs and tests.
 */
import {
  type AttemptClaim,
  type DeliveryKey,
  type DeliveryRecord,
  type DeliveryStore,
  isRecordOfRun,
} from './delivery-store.ts';

export function createMemoryDeliveryStore(): DeliveryStore {
  const records = new Map<string, DeliveryRecord & { enterpriseId: string; leaseUntil: number | null }>();
  const keyOf = (key: Pick<DeliveryKey, 'runId' | 'destinationId'>) => `${key.runId}|${key.destinationId}`;
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    async beginAttempt(key, nowMs, leaseMs): Promise<AttemptClaim> {
      let record = records.get(keyOf(key));
      // Last written before this run existed: an earlier run's under this id (see DeliveryKey), replaced.
      if (record !== undefined && record.updatedAt < key.runCreatedAt) {
        records.delete(keyOf(key));
        record = undefined;
      }
      if (record !== undefined) {
        if (record.enterpriseId !== key.enterpriseId) return { taken: false, reason: 'BUSY' };
        if (record.status === 'DELIVERED') return { taken: false, reason: 'DELIVERED' };
        if (record.status === 'SENDING' && (record.leaseUntil ?? 0) >= nowMs) return { taken: false, reason: 'BUSY' };
      }
      const attempts = (record?.attempts ?? 0) + 1;
      records.set(keyOf(key), {
        destinationId: key.destinationId,
        destinationType: key.destinationType,
        enterpriseId: key.enterpriseId,
        status: 'SENDING',
        attempts,
        lastError: record?.lastError ?? null,
        updatedAt: iso(nowMs),
        deliveredAt: null,
        leaseUntil: nowMs + leaseMs,
      });
      return { taken: true, attempt: attempts };
    },
    async recordDelivered(key, nowMs) {
      const record = records.get(keyOf(key));
      if (record === undefined || record.enterpriseId !== key.enterpriseId) throw new Error('no such delivery');
      Object.assign(record, {
        status: 'DELIVERED',
        deliveredAt: iso(nowMs),
        updatedAt: iso(nowMs),
        lastError: null,
        leaseUntil: null,
      });
    },
    async recordFailure(key, code, final, nowMs) {
      const record = records.get(keyOf(key));
      if (record === undefined || record.enterpriseId !== key.enterpriseId) throw new Error('no such delivery');
      if (record.status === 'DELIVERED') return;
      Object.assign(record, {
        status: final ? 'DEAD_LETTERED' : 'RETRYING',
        lastError: code,
        updatedAt: iso(nowMs),
        leaseUntil: null,
      });
    },
    async listDeliveries(run) {
      return [...records.entries()]
        .filter(([key, record]) => key.startsWith(`${run.runId}|`) && isRecordOfRun(record, run))
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([, { enterpriseId: _enterprise, leaseUntil: _lease, ...record }]) => record);
    },
  };
}
