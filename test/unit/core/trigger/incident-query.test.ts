import {
  buildIncidentQuery,
  DEFAULT_QUERY_TEMPLATES,
  incidentQueryFits,
  MIN_REASON_BYTES,
  mappingsOverQueryLimit,
  QUERY_TEXT_CAPS,
  triggerMappingsSchema,
} from '@diagnosis/core';
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

  it('turns exactly the control characters (\\p{Cc}), U+2028 and U+2029 into a space, over the whole BMP', () => {
    const wrong: string[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCharCode(code);
      const query = buildIncidentQuery({ ...facts, alarm: `a${character}b` }, '{alarm}');
      const expected = /[\p{Cc}\u2028\u2029]/u.test(character) ? 'a b' : `a${character}b`;
      if (query !== expected) wrong.push(`U+${code.toString(16)}`);
    }
    expect(wrong).toEqual([]);
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
    // Cut on a character boundary and marked as cut (issue 32 items 4 and 5).
    expect(query).toContain(`a b c${'x'.repeat(QUERY_TEXT_CAPS.alarm - 6)}…」`);
    expect(query.length).toBeLessThan(
      DEFAULT_QUERY_TEMPLATES.cloudwatch.length + QUERY_TEXT_CAPS.alarm + QUERY_TEXT_CAPS.reason + 60,
    );
  });

  it('fits the query’s byte limit by cutting {reason} first, on a character boundary, counting UTF-8 bytes', () => {
    const reason = '数据库连接池耗尽'.repeat(200);
    const template = '告警「{alarm}」：{reason}。又：{reason}。';
    const whole = buildIncidentQuery({ ...facts, reason }, template);
    expect(Buffer.byteLength(whole)).toBeGreaterThan(1_000);
    const query = buildIncidentQuery({ ...facts, reason }, template, 1_000);
    expect(Buffer.byteLength(query)).toBeLessThanOrEqual(1_000);
    expect(Buffer.byteLength(query)).toBeGreaterThan(1_000 - 2 * 6);
    const [, first, second] = /^告警「E1001-payment-gateway-5xx」：(.*)。又：(.*)。$/u.exec(query) ?? [];
    expect(first).toBe(second);
    expect(first?.endsWith('…')).toBe(true);
    expect(reason.startsWith(first?.slice(0, -1) ?? 'x')).toBe(true);
  });

  it('cuts {alarm} when even the cut reason leaves no room, never a character in two', () => {
    const query = buildIncidentQuery(
      { ...facts, alarm: '😀'.repeat(100), reason: '原因'.repeat(100) },
      '{alarm}|{reason}',
      50,
    );
    expect(Buffer.byteLength(query)).toBeLessThanOrEqual(50);
    expect(query.isWellFormed()).toBe(true);
    expect(query).toMatch(/^(😀)+…\|$/u);
  });

  it('keeps the question whole when it fits', () => {
    const query = buildIncidentQuery({ ...facts, reason: '短' }, '{alarm}：{reason}', 1_000);
    expect(query).toBe('E1001-payment-gateway-5xx：短');
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

describe('incidentQueryFits', () => {
  const settings = { timeZone: 'Asia/Shanghai', maxQueryBytes: 4_096 };

  it('takes every source’s default question under the default limit', () => {
    for (const source of ['cloudwatch', 'alertmanager', 'pagerduty'] as const) {
      expect(incidentQueryFits({ source }, settings)).toBe(true);
    }
  });

  it('refuses a template whose own bytes, the alarm at its cap and some reason do not fit (bytes, not characters)', () => {
    // Under 1,000 characters pass the schema's cap, but 900 of them are 2,700 bytes of Chinese, and the alarm's
    // name at its cap twice is 1,536 more.
    const template = `${'诊'.repeat(900)}{alarm}{reason}{alarm}`;
    expect(
      v.is(triggerMappingsSchema, [{ source: 'pagerduty', serviceId: 'P1', enterpriseId: 'E1001', query: template }]),
    ).toBe(true);
    expect(incidentQueryFits({ source: 'pagerduty', query: template }, settings)).toBe(false);
    expect(incidentQueryFits({ source: 'pagerduty', query: template }, { ...settings, maxQueryBytes: 8_192 })).toBe(
      true,
    );
    // Each {reason} needs its own room.
    const room = 4_096 - QUERY_TEXT_CAPS.alarm * 3;
    const fits = `${'x'.repeat(room - MIN_REASON_BYTES)}{alarm}{reason}`;
    expect(incidentQueryFits({ source: 'pagerduty', query: fits }, settings)).toBe(true);
    expect(incidentQueryFits({ source: 'pagerduty', query: `${fits}{reason}` }, settings)).toBe(false);
    expect(
      mappingsOverQueryLimit(
        [
          { source: 'pagerduty', serviceId: 'P1', enterpriseId: 'E1001', query: fits },
          { source: 'pagerduty', serviceId: 'P2', enterpriseId: 'E1001', query: template },
        ],
        settings,
      ),
    ).toEqual([1]);
  });
});
