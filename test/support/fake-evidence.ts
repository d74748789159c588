import type {
  AdapterResult,
  EvidenceAdapters,
  KnowledgeData,
  LogsData,
  MysqlData,
  MysqlQueryDescriptor,
  ToolCallRequest,
  ToolName,
} from '@diagnosis/core';

export type FakeHandler = (call: ToolCallRequest<unknown>) => AdapterResult<unknown> | Promise<AdapterResult<unknown>>;

export const FAKE_CATALOG: readonly MysqlQueryDescriptor[] = Object.freeze([
  {
    name: 'recent_failed_orders',
    description: '最近失败的订单',
    params: {
      since: { type: 'datetime', description: '起始时间' },
      limit: { type: 'integer', description: '最多行数', min: 1, max: 50 },
    },
  },
  {
    name: 'payment_channel_config',
    description: '支付通道配置',
    params: { channel: { type: 'string', description: '通道名', max_length: 32 } },
  },
]);

export const knowledgeHit = (overrides: Partial<KnowledgeData['hits'][number]> = {}): KnowledgeData => ({
  hits: [
    {
      doc_id: 'rb-001',
      title: '支付网关连接池耗尽处理手册',
      snippet: '当 payment-gateway 出现连接池耗尽时，订单服务会报 upstream timeout。',
      score: 0.92,
      service: 'payment-gateway',
      ...overrides,
    },
  ],
});

export const logLines = (count = 2): LogsData => ({
  matched: count,
  lines: Array.from({ length: count }, (_, index) => ({
    timestamp: `2026-11-30T14:0${index % 10}:00+08:00`,
    level: 'ERROR',
    service: 'order-service',
    message: `call payment-gateway failed: connection pool exhausted #${index}`,
    trace_id: `t-${index}`,
  })),
});

export const mysqlRows = (): MysqlData => ({
  columns: ['order_id', 'status'],
  rows: [
    ['O-1', 'FAILED'],
    ['O-2', 'FAILED'],
  ],
  truncated: false,
});

/**
 * In-memory evidence adapters that record every call they receive and answer from a handler per tool
 * (default: a small OK result). Fakes over mocks: tests assert on the recorded calls.
 */
export function createFakeEvidence(
  handlers: Partial<Record<ToolName, FakeHandler>> = {},
  catalog: readonly MysqlQueryDescriptor[] = FAKE_CATALOG,
) {
  const calls: ToolCallRequest<unknown>[] = [];
  const defaults: Record<ToolName, FakeHandler> = {
    lookup_knowledge: () => ({ status: 'OK', data: knowledgeHit() }),
    query_logs: () => ({ status: 'OK', data: logLines() }),
    query_mysql: () => ({ status: 'OK', data: mysqlRows() }),
  };
  const adapter = (toolName: ToolName) => ({
    execute: async (call: ToolCallRequest<unknown>) => {
      calls.push(call);
      return (handlers[toolName] ?? defaults[toolName])(call);
    },
  });
  const evidence = {
    lookup_knowledge: adapter('lookup_knowledge'),
    query_logs: adapter('query_logs'),
    query_mysql: { ...adapter('query_mysql'), catalog },
  } as EvidenceAdapters;
  return { evidence, calls };
}
