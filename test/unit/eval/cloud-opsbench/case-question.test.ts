import { describe, expect, it } from 'vitest';
import { buildCaseQuestion, MAX_QUESTION_BYTES } from '../../../../packages/eval/src/cloud-opsbench/case-question.ts';

const base = {
  query: 'Ledger writes fail.',
  namespace: 'train-ticket',
  window: { start: '2031-05-06T10:18:00+08:00', end: '2031-05-06T10:21:00+08:00' },
  streams: ['kubernetes', 'ts-gateway-service', 'ts-ledger-service', 'ts-ledger-service.istio-proxy'],
  labels: ['mysql_invalid_credentials', 'mysql_invalid_port'],
};

describe('buildCaseQuestion', () => {
  it('asks with the case’s query, alerts, window, streams and the labels to answer in', () => {
    const question = buildCaseQuestion({
      ...base,
      alerts: [
        {
          request_method: 'POST',
          business_action: 'Post ledger entry',
          entry_service: 'ts-gateway-service',
          url: '/api/v1/ledger/entries',
          occurrences: 41,
          raw_error: "HTTPError('503 Server Error')",
        },
        {
          name: 'ts-fare-service',
          entity_type: 'Service',
          time_range: '2031-05-07 07:58:00 ~ 2031-05-07 08:00:00',
          metric_category: 'THROUGHPUT_DROP',
          evidence: ['THROUGHPUT_DROP [RPS] | Normal=3.1req/s -> Current=0.0req/s'],
        },
      ],
    });
    expect(question).toBe(
      [
        'train-ticket 集群告警：Ledger writes fail.',
        '告警详情（2 条）：',
        "- ts-gateway-service POST /api/v1/ledger/entries（Post ledger entry）：HTTPError('503 Server Error')，41 次",
        '- ts-fare-service（Service） 2031-05-07 07:58:00 ~ 2031-05-07 08:00:00：THROUGHPUT_DROP；THROUGHPUT_DROP [RPS] | Normal=3.1req/s -> Current=0.0req/s',
        '时间窗口：2031-05-06T10:18:00+08:00 至 2031-05-06T10:21:00+08:00。',
        '可查询日志的服务：ts-gateway-service、ts-ledger-service；sidecar 的日志在服务 <服务名>.istio-proxy。' +
          'Kubernetes 状态（Pod、Deployment、节点、Service、事件）在服务 kubernetes 的日志中，每条以 <类型>/<名称> 开头。',
        '请找出根因。结论中写出故障对象（app/<服务名>、node/<节点名> 或 namespace/<命名空间>）和下列根因标签之一：' +
          'mysql_invalid_credentials、mysql_invalid_port。',
      ].join('\n'),
    );
  });

  it('says there is no alert when the case has none', () => {
    expect(buildCaseQuestion({ ...base, alerts: [] })).toContain('告警详情：无。');
  });

  it('stays within the query’s bound, cutting alerts and then services and counting them', () => {
    const question = buildCaseQuestion({
      ...base,
      alerts: Array.from({ length: 40 }, (_, index) => ({ entry_service: `svc-${index}`, raw_error: 'e'.repeat(400) })),
      streams: Array.from({ length: 400 }, (_, index) => `service-number-${index}`),
    });
    expect(Buffer.byteLength(question)).toBeLessThanOrEqual(MAX_QUESTION_BYTES);
    expect(question).toContain('另有 39 条未列出');
    expect(question).toContain('等 400 个');
  });
});
