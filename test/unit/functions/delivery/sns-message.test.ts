import { describe, expect, it } from 'vitest';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import { buildSnsMessage, SNS_LIMITS } from '../../../../functions/delivery/sns-message.ts';
import { finishedRun } from '../../../support/finished-runs.ts';
import { supportedDraft } from '../../../support/run-fixtures.ts';

describe('buildSnsMessage', () => {
  it('writes an ASCII subject of at most 100 characters, the full text for email and one line for SMS', async () => {
    const run = await finishedRun('PUBLISHED', { runId: `r${'x'.repeat(79)}`, enterpriseId: `E${'1'.repeat(63)}` });
    const { subject, message } = buildSnsMessage(
      buildRunFinishedEvent(run, { apiUrl: 'https://api.example.com' }).detail,
    );
    expect(subject.length).toBeLessThanOrEqual(SNS_LIMITS.subject);
    expect(subject).toMatch(/^[\x20-\x7e]+$/);
    expect(subject.startsWith('Diagnosis PUBLISHED: E1111')).toBe(true);
    expect(message.email).toBe(message.default);
    expect(message.email).toContain('Conclusion: payment-gateway 连接池缩小导致订单失败');
    expect(message.email).toContain('Evidence: query_logs ×1');
    expect(message.email).toContain('AI-generated, review before acting.');
    expect(message.email).toContain(`Run: https://api.example.com/runs/${run.runId}`);
    expect(message.sms.length).toBeLessThanOrEqual(SNS_LIMITS.sms);
    expect(message.sms).not.toContain('\n');
  });

  it('replaces control characters (terminal escapes in evidence) and bounds the text', async () => {
    const draft = supportedDraft(['call_1']);
    const statement = `\u001b]8;;https://evil\u0007click\u001b]8;;\u0007 ${'长'.repeat(900)}`;
    const run = await finishedRun('PUBLISHED', {
      draft: {
        ...draft,
        analysis: Array.from({ length: 10 }, () => ({ ...draft.analysis[0], statement }) as (typeof draft.analysis)[0]),
      },
      query: 'q\u001b[2J'.repeat(2_000),
    });
    const { message } = buildSnsMessage(buildRunFinishedEvent(run).detail);
    expect(message.email).not.toContain('\u001b');
    expect(message.email).not.toContain('\u0007');
    expect(message.email.length).toBeLessThanOrEqual(SNS_LIMITS.text);
    expect(message.email).toContain('…and 5 more findings in the run.');
  });

  it.each(['FALLBACK', 'FAILED', 'CANCELLED'] as const)('says there is no conclusion for %s', async (kind) => {
    const { message, subject } = buildSnsMessage(buildRunFinishedEvent(await finishedRun(kind)).detail);
    expect(subject).toContain(`Diagnosis ${kind}`);
    expect(message.email).toContain('No conclusion.');
    expect(message.sms).toContain('no conclusion');
  });
});
