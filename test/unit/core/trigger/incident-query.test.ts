import { buildIncidentQuery, DEFAULT_QUERY_TEMPLATES, QUERY_TEXT_CAPS, triggerMappingsSchema } from '@diagnosis/core';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';

const facts = {
  source: 'cloudwatch' as const,
  alarm: 'E1001-payment-gateway-5xx',
  reason: 'Threshold Crossed: 42 >= 20',
  startedAt: Date.parse('2026-11-30T06:05:12.211Z'),
  timeZone: 'Asia/Shanghai',
};

describe('buildIncidentQuery', () => {
  it('fills the source’s Chinese template with the alarm, its reason and its start in the deployment’s zone', () => {
    expect(buildIncidentQuery({ ...facts, service: 'payment-gateway' })).toBe(
      'CloudWatch 告警「E1001-payment-gateway-5xx」于 2026-11-30T14:05:12+08:00（Asia/Shanghai）进入 ALARM 状态。状态原因：Threshold Crossed: 42 >= 20。相关服务：payment-gateway。请诊断原因，并给出证据。',
    );
  });

  it('uses a mapping’s own template, filling each placeholder once', () => {
    const query = buildIncidentQuery({ ...facts, reason: 'reason says {alarm} and {service}' }, '{alarm}: {reason}');
    expect(query).toBe('E1001-payment-gateway-5xx: reason says {alarm} and {service}');
  });

  it('bounds the sender’s texts and drops their control characters', () => {
    const query = buildIncidentQuery({
      ...facts,
      alarm: `a\u0000b\nc${'x'.repeat(1_000)}`,
      reason: `r\r\n\u2028${'y'.repeat(5_000)}`,
    });
    expect(query).not.toMatch(/[\p{Cc}\u2028]/u);
    expect(query).toContain(`a b c${'x'.repeat(QUERY_TEXT_CAPS.alarm - 5)}」`);
    expect(query.length).toBeLessThan(
      DEFAULT_QUERY_TEMPLATES.cloudwatch.length + QUERY_TEXT_CAPS.alarm + QUERY_TEXT_CAPS.reason + 60,
    );
  });

  it('names a missing reason and service', () => {
    expect(buildIncidentQuery({ ...facts, reason: '  ' })).toContain('状态原因：（无）。相关服务：未指定。');
  });
});

describe('triggerMappingsSchema', () => {
  const valid = { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001' };

  it('takes each source’s mapping', () => {
    expect(
      v.is(triggerMappingsSchema, [
        valid,
        { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', service: 'payment-gateway' },
        {
          source: 'pagerduty',
          serviceId: 'PF9KMXH',
          enterpriseId: 'E2002',
          query: '事件「{alarm}」',
          lookbackMinutes: 60,
        },
      ]),
    ).toBe(true);
  });

  it.each([
    ['a pattern of stars only', { ...valid, alarmNamePattern: '**' }],
    ['a lower-case enterprise', { ...valid, enterpriseId: 'e1001' }],
    ['an unknown placeholder', { ...valid, query: '告警 {alarmName}' }],
    ['an unknown field', { ...valid, tenant: 'E2002' }],
    ['a lookback longer than the longest window', { ...valid, lookbackMinutes: 7 * 24 * 60 }],
    ['an Alertmanager mapping with no label', { source: 'alertmanager', labels: {}, enterpriseId: 'E1001' }],
    ['a PagerDuty service id of another form', { source: 'pagerduty', serviceId: 'svc one', enterpriseId: 'E1001' }],
    ['an unknown source', { ...valid, source: 'datadog' }],
  ])('refuses %s', (_, mapping) => {
    expect(v.is(triggerMappingsSchema, [mapping])).toBe(false);
  });
});
