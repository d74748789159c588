import { describe, expect, it } from 'vitest';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import { buildTeamsMessage, TEAMS_MAX_BYTES } from '../../../../functions/delivery/teams-card.ts';
import { finishedRun } from '../../../support/finished-runs.ts';

const HOSTILE = '[click](https://evil.example) **bold** <at>everyone</at> \u001b[31m';

type Card = {
  type: string;
  body: { type: string; text?: string; inlines?: { type: string; text: string }[] }[];
  actions?: unknown[];
};

describe('buildTeamsMessage', () => {
  it('is one Adaptive Card in a Workflows message, no buttons that post back, the run link ours', async () => {
    const run = await finishedRun('PUBLISHED');
    const message = buildTeamsMessage(buildRunFinishedEvent(run, { apiUrl: 'https://api.example.com' }).detail);
    expect(message.type).toBe('message');
    const [attachment] = message.attachments as { contentType: string; content: Card }[];
    expect(attachment?.contentType).toBe('application/vnd.microsoft.card.adaptive');
    expect(attachment?.content.type).toBe('AdaptiveCard');
    expect(attachment?.content.actions).toEqual([
      { type: 'Action.OpenUrl', title: 'Open the run (GET /runs)', url: `https://api.example.com/runs/${run.runId}` },
    ]);
    expect(JSON.stringify(message)).toContain('AI-generated');
  });

  it('puts text of others only in plain TextRuns (Markdown not read), control characters replaced', async () => {
    const run = await finishedRun('PUBLISHED', { query: HOSTILE });
    const message = buildTeamsMessage(buildRunFinishedEvent(run).detail);
    const [attachment] = message.attachments as { content: Card }[];
    const blocks = attachment?.content.body ?? [];
    for (const block of blocks.filter((element) => element.type === 'TextBlock')) {
      expect(block.text).not.toContain('evil.example');
    }
    const runs = blocks.flatMap((block) => block.inlines ?? []);
    expect(
      runs.some((inline) => inline.type === 'TextRun' && inline.text.includes('[click](https://evil.example)')),
    ).toBe(true);
    expect(JSON.stringify(message)).not.toContain('\u001b');
  });

  it('stays under the Teams message size with a very long result', async () => {
    const run = await finishedRun('PUBLISHED');
    const { detail } = buildRunFinishedEvent(run);
    const long = { ...detail, query: '订单 '.repeat(50_000), conclusion: 'x '.repeat(50_000) };
    const [first] = detail.findings;
    if (first === undefined) throw new Error('no finding');
    long.findings = Array.from({ length: 20 }, () => ({ ...first, statement: '长 '.repeat(5_000) }));
    expect(Buffer.byteLength(JSON.stringify(buildTeamsMessage(long)))).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
  });

  it('says what the Slack card says: the status in words, how it started, the plan first, no run or session id', async () => {
    const run = await finishedRun('PUBLISHED', { sessionId: 'session-of-46-characters-0123456789abcdefghij' });
    const trigger = { source: 'cloudwatch', incidentKey: 'order-service-5xx' };
    const { detail } = buildRunFinishedEvent({ ...run, trigger }, { apiUrl: 'https://api.example.com' });
    const [attachment] = buildTeamsMessage(detail).attachments as { content: Card }[];
    const body = attachment?.content.body ?? [];
    const texts = body.map((element) => element.text ?? element.inlines?.map((inline) => inline.text).join('') ?? '');
    expect(texts.slice(0, 3)).toEqual([
      'Diagnosed · E1001',
      '⚠ AI-generated, review before acting.',
      'Triggered by cloudwatch · incident order-service-5xx',
    ]);
    expect(texts).toContain('Action plan');
    expect(texts).toContain('1. 恢复 payment-gateway 连接池配置 — 恢复下单');
    expect(texts).toContain('• 发布前检查连接池配置变更');
    expect(texts.at(-1)).toBe('4 model calls · 3 checks · 21,500 tokens');
    expect(JSON.stringify(body)).not.toContain(run.runId);
    expect(JSON.stringify(body)).not.toContain(run.sessionId);
  });

  it('keeps the status, the question, the conclusion and the first steps when a result is too large', async () => {
    const run = await finishedRun('PUBLISHED');
    const { detail } = buildRunFinishedEvent({ ...run, continueSession: true });
    const plan = Array.from({ length: 8 }, (_, index) => ({
      step: `第 ${index + 1} 步 ${'长'.repeat(290)}`,
      purpose: '目的',
    }));
    const [finding] = detail.findings;
    if (finding === undefined) throw new Error('no finding');
    const long = {
      ...detail,
      actionPlan: plan,
      recommendations: Array.from({ length: 8 }, () => '建议 '.repeat(150)),
      findings: Array.from({ length: 10 }, () => ({ ...finding, statement: '长'.repeat(1_000) })),
    };
    const message = buildTeamsMessage(long);
    expect(Buffer.byteLength(JSON.stringify(message))).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
    const text = JSON.stringify(message);
    expect(text).toContain('Follow-up · Diagnosed · E1001');
    for (const step of [1, 2, 3]) expect(text).toContain(`${step}. 第 ${step} 步`);
    // The tail went first: the usage line and the last lists are what a too-large card loses.
    expect(text).not.toContain('21,500 tokens');
  });
});
