import { describe, expect, it } from 'vitest';
import { previewDeliveries } from '../../../../functions/delivery/preview-deliveries.ts';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import { buildSlackMessage } from '../../../../functions/delivery/slack-message.ts';
import { buildSnsMessage } from '../../../../functions/delivery/sns-message.ts';
import { blockKitViolations } from '../../../support/block-kit.ts';
import { finishedRun } from '../../../support/finished-runs.ts';
import { resultEventValidator } from '../../../support/result-event-schema.ts';

const NOW = Date.parse('2026-11-30T06:10:31Z');

describe('previewDeliveries', () => {
  it('builds each destination’s message with the deployed builders, in the stage file’s order', async () => {
    const event = buildRunFinishedEvent(await finishedRun('PUBLISHED'));
    const previews = previewDeliveries(
      event,
      [
        { id: 'oncall', type: 'slack', secret: 'DestinationOncall' },
        { id: 'itsm', type: 'webhook', url: 'https://itsm.example.com/hooks/diagnosis', secret: 'DestinationItsm' },
        { id: 'mail', type: 'sns', emails: [] },
      ],
      NOW,
    );
    expect(previews.map((preview) => [preview.type, preview.destinationId])).toEqual([
      ['slack', 'oncall'],
      ['webhook', 'itsm'],
      ['sns', 'mail'],
    ]);
    const [slack, webhook, sns] = previews;
    expect(slack?.payload).toEqual(buildSlackMessage(event.detail));
    expect(blockKitViolations(buildSlackMessage(event.detail))).toEqual([]);
    expect(sns?.payload).toEqual(buildSnsMessage(event.detail));
    expect(sns?.text).toContain(`Subject: ${buildSnsMessage(event.detail).subject}`);
    if (webhook?.type !== 'webhook') throw new Error('no webhook preview');
    expect(webhook.url).toBe('https://itsm.example.com/hooks/diagnosis');
    expect(resultEventValidator()(JSON.parse(webhook.payload.body))).toBe(true);
    expect(webhook.payload.headers['x-diagnosis-signature']).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(webhook.payload.headers['x-diagnosis-delivery-id']).toBe(`${event.detail.runId}:itsm`);
    expect(webhook.text.split('\n')[0]).toBe('POST https://itsm.example.com/hooks/diagnosis');
  });

  it('shows what a Slack destination would receive when the enterprise has none', async () => {
    const event = buildRunFinishedEvent(await finishedRun('FALLBACK'));
    const previews = previewDeliveries(event, [], NOW);
    expect(previews).toHaveLength(1);
    expect(previews[0]).toMatchObject({ type: 'slack', destinationId: 'slack-preview' });
    expect(previews[0]?.payload).toEqual(buildSlackMessage(event.detail));
  });

  it('replaces control characters in the terminal rendering of hostile evidence', async () => {
    const run = await finishedRun('PUBLISHED');
    const event = buildRunFinishedEvent({ ...run, query: 'why?\u001b[2J\u001b]8;;https://evil.example\u0007x' });
    const [slack] = previewDeliveries(event, [], NOW);
    const controls = [...(slack?.text ?? '')].filter((char) => {
      const code = char.codePointAt(0) ?? 0;
      return (code < 0x20 && char !== '\n' && char !== '\t') || code === 0x7f;
    });
    expect(controls).toEqual([]);
  });
});
