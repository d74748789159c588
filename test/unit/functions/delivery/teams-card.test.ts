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
});
