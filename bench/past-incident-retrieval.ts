/**
 * Past-incident retrieval, measured on DynamoDB Local (`node bench/past-incident-retrieval.ts`): for an enterprise
 * holding 100, 1,000 and 10,000 past incidents (and another enterprise holding as many, so a partition is never
 * alone), one `lookup_knowledge` call's memory part — the enterprise's newest window read (one Query page) and ranked
 * against the query (`createPastIncidentKnowledge` over an empty runbook source, so only the memory is timed) —
 * repeated BENCH_CALLS times (default 200): latency p50 / p95, items read and bytes read per call (the JSON of the
 * items returned, DynamoDB's own unit being 4 KB read units), and hits returned. Synthetic memories: a conclusion of
 * about 120 Chinese characters and a stated cause of about 30, services from a list of eight.
 * BENCH_INCIDENT_SIZES=100 measures these sizes alone (default 100,1000,10000; seeding 10,000 takes most of the run).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  createPastIncidentKnowledge,
  type EvidenceAdapter,
  type KnowledgeData,
  type KnowledgeInput,
  type PastIncident,
} from '@diagnosis/core';
import { createDynamoPastIncidentStore, ensureDiagnosisTable, pastIncidentPartitionKey } from '@diagnosis/core/store';
import { startDynamoDbLocal } from '@diagnosis/devkit';
import { pastIncidentItem } from '../packages/core/src/store/items/past-incident-item.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const SIZES = (process.env.BENCH_INCIDENT_SIZES ?? '100,1000,10000').split(',').map(Number);
if (!SIZES.every((size, index) => Number.isSafeInteger(size) && size > (SIZES[index - 1] ?? 0))) {
  throw new Error('BENCH_INCIDENT_SIZES is a list of whole numbers > 0, each larger than the one before');
}
const SERVICES = [
  'order-service',
  'payment-gateway',
  'inventory-service',
  'user-service',
  'search',
  'cart',
  'billing',
  'notify',
];
const CAUSES = [
  '支付渠道在 MySQL 中被停用',
  '数据库连接池被调小',
  'TLS 证书过期',
  '库存同步任务卡住',
  '限流阈值配置错误',
];
const NOW = Date.parse('2026-12-01T00:00:00.000Z');

function memory(enterpriseId: string, index: number): PastIncident {
  const cause = CAUSES[index % CAUSES.length] ?? '';
  const service = SERVICES[index % SERVICES.length] ?? '';
  return {
    enterpriseId,
    runId: `bench-${enterpriseId}-${String(index).padStart(6, '0')}`,
    occurredAt: new Date(NOW - (index + 1) * 600_000).toISOString(),
    services: [service, 'order-service'],
    conclusion: `${enterpriseId} 的订单从 14:05 起大量失败，直接原因是${cause}：${service} 调用返回 503，订单以 PAYMENT_TIMEOUT 失败，错误集中在 14:05 之后的十分钟内，影响约 1,200 笔订单，恢复配置后失败率回落到正常水平。`,
    rootCause: `响应者确认：${cause}（变更单 CHG-${index}）`,
    rating: index % 3 === 0 ? 'PARTIALLY_CORRECT' : 'CORRECT',
    ratedAt: new Date(NOW - index * 600_000).toISOString(),
    expiresAt: NOW + 180 * 86_400_000,
  };
}

async function seed(
  documents: DynamoDBDocumentClient,
  tableName: string,
  enterpriseId: string,
  from: number,
  to: number,
) {
  for (let start = from; start < to; start += 25) {
    const items = [];
    for (let index = start; index < Math.min(to, start + 25); index += 1)
      items.push(pastIncidentItem(memory(enterpriseId, index)));
    let request: Record<string, { PutRequest: { Item: Record<string, unknown> } }[]> | undefined = {
      [tableName]: items.map((item) => ({ PutRequest: { Item: item } })),
    };
    while (request !== undefined && Object.keys(request).length > 0) {
      const result = await documents.send(new BatchWriteCommand({ RequestItems: request }));
      request = result.UnprocessedItems as typeof request;
    }
  }
}

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? 0;
};

const noRunbooks: EvidenceAdapter<KnowledgeInput, KnowledgeData> = { execute: async () => ({ status: 'EMPTY' }) };

const engine = await startDynamoDbLocal();
try {
  const client = new DynamoDBClient({
    endpoint: engine.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  const tableName = 'bench-past-incidents';
  await ensureDiagnosisTable(client, tableName);
  const documents = DynamoDBDocumentClient.from(client);
  const store = createDynamoPastIncidentStore({ client, tableName });
  let bytes = 0;
  let items = 0;
  const measured = {
    recent: async (enterpriseId: string, options: { limit: number; now: number; signal?: AbortSignal }) => {
      const found = await store.recent(enterpriseId, options);
      items += found.length;
      bytes += found.reduce((sum, incident) => sum + Buffer.byteLength(JSON.stringify(pastIncidentItem(incident))), 0);
      return found;
    },
  };
  const knowledge = createPastIncidentKnowledge({ runbooks: noRunbooks, incidents: measured, now: () => NOW });
  console.log(`past-incident retrieval, ${CALLS} calls per size, DynamoDB Local ${engine.endpoint}`);
  console.log(
    'memories  p50 ms  p95 ms  items/call  bytes/call  hits/call  (partition key',
    pastIncidentPartitionKey('E1001'),
    ')',
  );
  let seeded = 0;
  for (const size of SIZES) {
    await seed(documents, tableName, 'E1001', seeded, size);
    await seed(documents, tableName, 'E2002', seeded, size);
    seeded = size;
    const times: number[] = [];
    let hits = 0;
    bytes = 0;
    items = 0;
    for (let call = 0; call < CALLS; call += 1) {
      const service = call % 2 === 0 ? { service: SERVICES[call % SERVICES.length] as string } : {};
      const started = performance.now();
      const result = await knowledge.execute({
        runId: 'bench',
        sessionId: 's',
        enterpriseId: 'E1001',
        toolCallId: `k${call}`,
        toolName: 'lookup_knowledge',
        input: { query: `订单失败 ${CAUSES[call % CAUSES.length]}`, top_k: 3, ...service },
        signal: new AbortController().signal,
      });
      times.push(performance.now() - started);
      if (result.status === 'OK') hits += result.data.hits.length;
    }
    console.log(
      `${String(size).padStart(8)}  ${percentile(times, 0.5).toFixed(1).padStart(6)}  ${percentile(times, 0.95).toFixed(1).padStart(6)}  ${(items / CALLS).toFixed(0).padStart(10)}  ${(bytes / CALLS).toFixed(0).padStart(10)}  ${(hits / CALLS).toFixed(1).padStart(9)}`,
    );
  }
  client.destroy();
} finally {
  await engine.stop();
}
