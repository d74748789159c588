import { readFileSync } from 'node:fs';
import { STOP_REASONS, TOOL_NAMES } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import {
  buildRunFinishedEvent,
  costOf,
  envelopeOf,
  RESULT_STATUS_OF_RUN,
  RESULT_STATUSES,
  type RunFinishedEvent,
} from '../../../../functions/delivery/run-finished-event.ts';
import { type FinishedKind, finishedRun } from '../../../support/finished-runs.ts';
import { loadResultEventSchema, resultEventValidator } from '../../../support/result-event-schema.ts';
import { noConclusionDraft, supportedDraft } from '../../../support/run-fixtures.ts';

const META = {
  id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718',
  time: '2026-11-30T06:10:31Z',
  account: '123456789012',
  region: 'eu-west-1',
};
const validate = resultEventValidator();
const valid = (event: RunFinishedEvent) => {
  const ok = validate(envelopeOf(event, META));
  return ok ? 'valid' : JSON.stringify(validate.errors);
};

describe('buildRunFinishedEvent', () => {
  it.each(['PUBLISHED', 'FALLBACK', 'FAILED', 'CANCELLED'] as FinishedKind[])(
    'builds a %s event that the committed JSON Schema accepts',
    async (kind) => {
      const run = await finishedRun(kind);
      const event = buildRunFinishedEvent(run, {
        apiUrl: 'https://api.example.com/',
        price: { input: 0.28, cachedInput: 0.028, output: 0.42 },
      });
      expect(valid(event)).toBe('valid');
      expect(event.detailType).toBe('Diagnosis Run Finished');
      expect(event.detail.schemaVersion).toBe(1);
      expect(event.detail.status).toBe(kind);
      expect(event.detail.runId).toBe(run.runId);
      expect(event.detail.enterpriseId).toBe('E1001');
      expect(event.detail.trigger).toBeNull();
      expect(event.detail.links.run).toBe(`https://api.example.com/runs/${run.runId}`);
    },
  );

  it('maps the stored SUCCEEDED to the release vocabulary PUBLISHED and keeps the stored status beside it', async () => {
    const event = buildRunFinishedEvent(await finishedRun('PUBLISHED'));
    expect(event.detail).toMatchObject({
      status: 'PUBLISHED',
      runStatus: 'SUCCEEDED',
      abstained: false,
      message: null,
    });
    expect(RESULT_STATUS_OF_RUN).toEqual({
      SUCCEEDED: 'PUBLISHED',
      FALLBACK: 'FALLBACK',
      FAILED: 'FAILED',
      CANCELLED: 'CANCELLED',
    });
  });

  it('carries the published findings with their verified citations, the limitations, usage and cost', async () => {
    const run = await finishedRun('PUBLISHED', { draft: supportedDraft(['call_a', 'call_b', 'call_c']) });
    const { detail } = buildRunFinishedEvent(run, { price: { input: 0.28, cachedInput: 0.028, output: 0.42 } });
    expect(detail.conclusion).toBe('payment-gateway 连接池缩小导致订单失败');
    expect(detail.findings).toEqual([
      {
        type: 'FINDING',
        statement: '订单服务日志显示调用 payment-gateway 时连接池耗尽',
        evidenceStatus: 'SUPPORTED',
        scope: null,
        citations: [
          { toolCallId: 'call_a', toolName: 'query_logs', empty: false },
          { toolCallId: 'call_b', toolName: 'query_mysql', empty: false },
          { toolCallId: 'call_c', toolName: 'query_logs', empty: true },
        ],
      },
    ]);
    expect(detail.limitations).toEqual({ checkedScope: ['E1001 订单服务 14:00–15:00 日志'], missingInfo: [] });
    expect(detail.usage).toEqual({
      modelCalls: 4,
      toolCalls: 3,
      inputTokens: 20_000,
      cachedInputTokens: 12_000,
      outputTokens: 1_500,
      totalTokens: 21_500,
    });
    // 8,000 × 0.28 + 12,000 × 0.028 + 1,500 × 0.42 per million = 0.00224 + 0.000336 + 0.00063
    expect(detail.cost).toEqual({ currency: 'USD', amount: 0.003206 });
  });

  it('states an abstention when the published Draft has no conclusion', async () => {
    const run = await finishedRun('PUBLISHED', { draft: noConclusionDraft(['故障开始时间']) });
    const { detail } = buildRunFinishedEvent(run);
    expect(detail).toMatchObject({ status: 'PUBLISHED', conclusion: null, abstained: true, findings: [] });
    expect(detail.limitations.missingInfo).toEqual(['故障开始时间']);
  });

  it("never includes the unpublished Draft of a FALLBACK run: only the system report's limitations and message", async () => {
    const run = await finishedRun('FALLBACK');
    expect(run.draft).not.toBeNull();
    const { detail } = buildRunFinishedEvent(run);
    expect(detail).toMatchObject({
      status: 'FALLBACK',
      conclusion: null,
      abstained: true,
      findings: [],
      stopReason: 'TOOL_CALL_BUDGET',
    });
    expect(detail.limitations).toEqual({
      checkedScope: ['query_logs order-service 14:00–15:00'],
      missingInfo: ['支付网关的变更记录'],
    });
    expect(JSON.stringify(detail)).not.toContain('payment-gateway 连接池缩小');
    expect(detail.message).toContain('证据查询次数已用完');
  });

  it('ignores a stored report that is not one the release writes (no model text becomes structure)', async () => {
    const run = { ...(await finishedRun('FAILED')), report: { kind: 'FAILED', message: 7, limitations: 'x' } };
    const { detail } = buildRunFinishedEvent(run);
    expect(detail).toMatchObject({
      message: null,
      limitations: { checkedScope: [], missingInfo: [] },
      errorCode: 'MODEL_FAILED',
    });
    expect(valid({ ...buildRunFinishedEvent(run) })).toBe('valid');
  });

  it('maps a trigger when the run has one', async () => {
    const run = {
      ...(await finishedRun('CANCELLED')),
      trigger: { source: 'cloudwatch', incidentKey: 'arn:aws:cloudwatch:eu-west-1:1:alarm:x@2026-11-30T06:00:00Z' },
    };
    const event = buildRunFinishedEvent(run);
    expect(event.detail.trigger).toEqual(run.trigger);
    expect(valid(event)).toBe('valid');
  });

  it('states only the source and incident key of a richer trigger, and null for a trigger of another shape', async () => {
    const run = await finishedRun('FAILED');
    const rich = { source: 'pagerduty', incidentKey: 'PD-Q1', window: { from: 'x' }, events: 99 };
    expect(buildRunFinishedEvent({ ...run, trigger: rich }).detail.trigger).toEqual({
      source: 'pagerduty',
      incidentKey: 'PD-Q1',
    });
    for (const bad of [
      { source: 'x' },
      { source: '', incidentKey: 'k' },
      'cloudwatch',
      { source: 'x', incidentKey: 'k'.repeat(1_025) },
    ]) {
      expect(buildRunFinishedEvent({ ...run, trigger: bad }).detail.trigger).toBeNull();
    }
  });

  it('percent-encodes the run id in its links and gives none without an API URL', async () => {
    const run = await finishedRun('FAILED', { runId: 'run.with-dots_1' });
    expect(buildRunFinishedEvent(run).detail.links).toEqual({ run: null, audit: null });
    expect(buildRunFinishedEvent(run, { apiUrl: 'https://a.example' }).detail.links.audit).toBe(
      'https://a.example/runs/run.with-dots_1/audit',
    );
  });
});

describe('costOf', () => {
  it('never counts more cached tokens than input tokens', () => {
    expect(
      costOf(
        { inputTokens: 10, cachedInputTokens: 1_000, outputTokens: 0 },
        { input: 1, cachedInput: 1_000, output: 1 },
      ),
    ).toBe(0.01);
  });
});

describe('the committed schema docs/schemas/diagnosis-run-finished.v1.json', () => {
  const schema = loadResultEventSchema() as { $defs: Record<string, { properties: Record<string, unknown> }> };
  const enumOf = (value: unknown) => (value as { enum: string[] }).enum;

  it('lists exactly the statuses, stop reasons and tool names of the code', () => {
    const detail = schema.$defs.detail?.properties ?? {};
    expect(enumOf(detail.status)).toEqual([...RESULT_STATUSES]);
    expect(enumOf((detail.stopReason as { oneOf: unknown[] }).oneOf[1])).toEqual([...STOP_REASONS]);
    const citations = schema.$defs.finding?.properties.citations as { items: { properties: { toolName: unknown } } };
    const citation = citations.items;
    expect(enumOf(citation.properties.toolName)).toEqual([...TOOL_NAMES]);
  });

  it('refuses an event with an unknown field, a wrong version or status, or a missing field', async () => {
    const event = envelopeOf(buildRunFinishedEvent(await finishedRun('PUBLISHED')), META);
    expect(validate({ ...event, detail: { ...event.detail, extra: 1 } })).toBe(false);
    expect(validate({ ...event, detail: { ...event.detail, schemaVersion: 2 } })).toBe(false);
    expect(validate({ ...event, detail: { ...event.detail, status: 'SUCCEEDED' } })).toBe(false);
    expect(validate({ ...event, 'detail-type': 'Diagnosis Run Started' })).toBe(false);
    const { conclusion: _omitted, ...withoutConclusion } = event.detail;
    expect(validate({ ...event, detail: withoutConclusion })).toBe(false);
    expect(validate(event)).toBe(true);
  });
});

describe('the documented example docs/schemas/diagnosis-run-finished.v1.example.json', () => {
  it('is valid and is exactly what the builder makes of its (scripted) run', async () => {
    const example = JSON.parse(readFileSync('docs/schemas/diagnosis-run-finished.v1.example.json', 'utf8'));
    expect(validate(example)).toBe(true);
    const run = await finishedRun('PUBLISHED', { runId: '01KB2X7Q9D4M8N3P6R5S0T1V2W', sessionId: 'incident-4711' });
    const trigger = {
      source: 'cloudwatch',
      incidentKey: 'arn:aws:cloudwatch:eu-west-1:123456789012:alarm:order-service-5xx',
    };
    const event = buildRunFinishedEvent(
      { ...run, trigger },
      {
        apiUrl: 'https://a1b2c3.execute-api.eu-west-1.amazonaws.com',
        price: { input: 0.28, cachedInput: 0.028, output: 0.42 },
      },
    );
    expect(example).toEqual(envelopeOf(event, { ...META, id: example.id }));
  });
});
