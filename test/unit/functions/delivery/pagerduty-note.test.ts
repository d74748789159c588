import { describe, expect, it } from 'vitest';
import { buildPagerDutyNote, PAGERDUTY_NOTE_CHARS } from '../../../../functions/delivery/pagerduty-note.ts';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import { finishedRun } from '../../../support/finished-runs.ts';

const pagerduty = (incidentKey: string) => ({ source: 'pagerduty', incidentKey });

describe('buildPagerDutyNote', () => {
  it('adds the result as a note on the incident that started the run', async () => {
    const run = await finishedRun('PUBLISHED');
    const { detail } = buildRunFinishedEvent({ ...run, trigger: pagerduty('Q1R2DLCB21K7JS') });
    const note = buildPagerDutyNote(detail);
    expect(note?.path).toBe('/incidents/Q1R2DLCB21K7JS/notes');
    const body = JSON.parse(note?.body ?? '{}');
    expect(Object.keys(body)).toEqual(['note']);
    expect(body.note.content).toContain('AI-generated');
    expect(body.note.content).toContain(run.runId);
  });

  it('sends nothing for a run another source started, or an incident key that is not an incident id', async () => {
    const run = await finishedRun('PUBLISHED');
    expect(buildPagerDutyNote(buildRunFinishedEvent(run).detail)).toBeNull();
    const cloudwatch = { source: 'cloudwatch', incidentKey: 'Q1R2DLCB21K7JS' };
    expect(buildPagerDutyNote(buildRunFinishedEvent({ ...run, trigger: cloudwatch }).detail)).toBeNull();
    for (const key of ['../../users', 'Q1R2/notes', 'q1r2dlcb', 'ABC']) {
      expect(buildPagerDutyNote(buildRunFinishedEvent({ ...run, trigger: pagerduty(key) }).detail)).toBeNull();
    }
  });

  it('fits a long result into the note size, never cut inside a word, the plan kept before what is cut', async () => {
    const run = await finishedRun('PUBLISHED');
    const event = buildRunFinishedEvent({ ...run, trigger: pagerduty('PT4KHLK') });
    const detail = {
      ...event.detail,
      query: '订单失败 '.repeat(6_000),
      recommendations: Array.from({ length: 8 }, () => '检查连接池 '.repeat(50)),
      limitations: {
        checkedScope: Array.from({ length: 10 }, () => '订单服务日志 '.repeat(42)),
        missingInfo: Array.from({ length: 10 }, () => '支付网关变更记录 '.repeat(33)),
      },
    };
    const content: string = JSON.parse(buildPagerDutyNote(detail)?.body ?? '{}').note.content;
    expect(content.length).toBeLessThanOrEqual(PAGERDUTY_NOTE_CHARS);
    expect(content.endsWith('…')).toBe(true);
    expect(content).toContain('Action plan:\n1. 恢复 payment-gateway 连接池配置 — 恢复下单');
  });

  it('says what the Slack card says: the status in words, the alarm, the plan, no session id', async () => {
    const run = await finishedRun('PUBLISHED', { sessionId: 'session-of-46-characters-0123456789abcdefghij' });
    const { detail } = buildRunFinishedEvent(
      { ...run, trigger: pagerduty('PT4KHLK') },
      { apiUrl: 'https://api.example.com' },
    );
    const content: string = JSON.parse(buildPagerDutyNote(detail)?.body ?? '{}').note.content;
    const [first, second] = content.split('\n');
    expect(first).toBe('Diagnosed · E1001 — AI-generated, review before acting.');
    expect(second).toBe('Triggered by pagerduty · incident PT4KHLK');
    expect(content).toContain('Recommendations:\n- 发布前检查连接池配置变更');
    expect(content).toContain('21,500 tokens');
    expect(content).not.toContain(run.sessionId);
  });
});
