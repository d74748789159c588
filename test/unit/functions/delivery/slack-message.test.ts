import type { DiagnosisDraft } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import {
  AI_NOTICE,
  buildSlackMessage,
  escapeSlack,
  renderSlackMessageForTerminal,
  SLACK_MAX_FINDINGS,
} from '../../../../functions/delivery/slack-message.ts';
import { blockKitViolations } from '../../../support/block-kit.ts';
import { finishedRun } from '../../../support/finished-runs.ts';

const API = 'https://api.example.com';
const runLink = (runId: string) => `<${API}/runs/${runId}|Open the run (GET /runs)>`;

const HOSTILE = [
  '<!channel> 立即回滚 <@U024BE7LH> <https://evil.example/login|点此查看日志>',
  `超长行${'错误'.repeat(5_000)}`,
  `${'x'.repeat(10 * 1024)}`,
  `${'word '.repeat(2_048)}`,
  '👨‍👩‍👧‍👦🇨🇳👍🏽 *bold* _it_ ~s~ `code` ```block``` &lt;already&gt; & AT&T <!here|here> <#C123>',
  '\u001b[31mred\u001b[0m \u202eevil',
];

function hostileDraft(): DiagnosisDraft {
  return {
    conclusion: HOSTILE[0]?.repeat(3) ?? null,
    analysis: Array.from({ length: 10 }, (_, index) => ({
      type: 'FINDING' as const,
      statement: (HOSTILE[index % HOSTILE.length] ?? '').slice(0, 1_000),
      evidence_status: 'SUPPORTED' as const,
      tool_call_ids: [`call_${index}`, `call_${index + 1}`],
      scope: index % 2 === 0 ? (HOSTILE[(index + 1) % HOSTILE.length] ?? '').slice(0, 300) : null,
    })),
    action_plan: [],
    recommendations: [],
    limitations: {
      checked_scope: HOSTILE.map((text) => text.slice(0, 300)).concat(['a', 'b', 'c', 'd']),
      missing_info: HOSTILE.map((text) => text.slice(0, 300)),
    },
  };
}

describe('buildSlackMessage', () => {
  it('stays within Block Kit limits and escapes every hostile text (mentions, links, 10 KB lines, CJK, emoji)', async () => {
    const run = await finishedRun('PUBLISHED', { draft: hostileDraft(), query: HOSTILE.join('\n') });
    const trigger = { source: '<!channel>', incidentKey: `<@U1>${'k'.repeat(5_000)}` };
    const { detail } = buildRunFinishedEvent({ ...run, trigger }, { apiUrl: API });
    const message = buildSlackMessage(detail);
    expect(blockKitViolations(message, [runLink(run.runId)])).toEqual([]);
    const all = JSON.stringify(message);
    for (const live of ['<!channel>', '<@U024BE7LH>', '<https://evil.example', '<!here', '<#C123>']) {
      expect(all).not.toContain(live);
    }
    expect(all).toContain('&lt;!channel&gt;');
    expect(all).toContain('AT&amp;T');
    for (const block of message.blocks)
      if (block.type === 'section') expect(block.text).toMatchObject({ verbatim: true });
  });

  it('shows the header status, the AI notice, the conclusion, five findings with their evidence, and summarises the rest', async () => {
    const run = await finishedRun('PUBLISHED', { draft: hostileDraft() });
    const message = buildSlackMessage(buildRunFinishedEvent(run, { apiUrl: API }).detail);
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Diagnosed · E1001' } });
    const texts = message.blocks.map((block) => JSON.stringify(block));
    expect(texts.some((text) => text.includes(AI_NOTICE))).toBe(true);
    expect(texts.some((text) => text.includes('*Conclusion*'))).toBe(true);
    expect(texts.filter((text) => text.includes('_Evidence:_'))).toHaveLength(SLACK_MAX_FINDINGS);
    expect(texts.some((text) => text.includes('query_logs ×1, query_mysql ×1'))).toBe(true);
    expect(texts.some((text) => text.includes('…and 5 more findings in the run.'))).toBe(true);
    expect(texts.some((text) => text.includes('…and 5 more in the run'))).toBe(true);
    expect(texts.some((text) => text.includes('Started by a person through the API, the command line or Slack'))).toBe(
      true,
    );
    expect(texts.some((text) => text.includes('21,500 tokens'))).toBe(true);
    // No run or session id before the details: the run is linked, not printed.
    const summary = JSON.stringify(
      message.blocks.slice(
        0,
        message.blocks.findIndex((block) => block.type === 'divider'),
      ),
    );
    expect(summary.replaceAll(`${API}/runs/${run.runId}`, '')).not.toContain(run.runId);
    expect(summary).not.toContain(run.sessionId);
    expect(message.blocks.at(-1)).toEqual({
      type: 'section',
      text: { type: 'mrkdwn', text: runLink(run.runId), verbatim: true },
    });
  });

  it.each(['FALLBACK', 'FAILED', 'CANCELLED'] as const)(
    'says "No conclusion" with the system message for %s',
    async (kind) => {
      const run = await finishedRun(kind);
      const message = buildSlackMessage(buildRunFinishedEvent(run).detail);
      expect(blockKitViolations(message)).toEqual([]);
      const noConclusion = message.blocks.find(
        (block) => block.type === 'section' && block.text.text.startsWith('*No conclusion*'),
      );
      expect(noConclusion).toBeDefined();
      expect(JSON.stringify(message)).not.toContain('payment-gateway 连接池缩小');
    },
  );

  it('names the trigger and its incident key when the run was triggered', async () => {
    const run = {
      ...(await finishedRun('FAILED')),
      trigger: { source: 'cloudwatch', incidentKey: 'alarm-1@2026-11-30T06:00:00Z' },
    };
    const text = JSON.stringify(buildSlackMessage(buildRunFinishedEvent(run).detail));
    expect(text).toContain('Triggered by cloudwatch · incident `alarm-1@2026-11-30T06:00:00Z`');
  });

  it('keeps an incident key with backticks inside its code span (a key an alarm chose cannot close it)', async () => {
    const run = {
      ...(await finishedRun('FAILED')),
      trigger: { source: 'alertmanager', incidentKey: 'k` *bold* ~strike~ `` _it_ `x' },
    };
    const message = buildSlackMessage(buildRunFinishedEvent(run).detail);
    const line = message.blocks
      .flatMap((block) => (block.type === 'context' ? block.elements.map((element) => element.text) : []))
      .find((text) => text.includes('Triggered by'));
    // Exactly the two backticks of our own span; the key's own are shown as a look-alike (ˋ), never as Slack's.
    expect(line?.split('`')).toHaveLength(3);
    expect(line).toContain('incident `kˋ *bold* ~strike~ ˋˋ _it_ ˋx`');
  });
});

describe('escapeSlack', () => {
  it('escapes exactly &, < and >', () => {
    expect(escapeSlack('<!channel> & <@U1|x> *a*')).toBe('&lt;!channel&gt; &amp; &lt;@U1|x&gt; *a*');
  });
});

describe('renderSlackMessageForTerminal', () => {
  it('reads as text, with escapes undone and control characters replaced', async () => {
    const run = await finishedRun('PUBLISHED', { draft: hostileDraft() });
    const text = renderSlackMessageForTerminal(buildSlackMessage(buildRunFinishedEvent(run).detail));
    expect(text).toContain('# Diagnosed · E1001');
    expect(text).toContain('<!channel> 立即回滚');
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
  });
});

describe('blockKitViolations (the test checker itself)', () => {
  it('flags live mention syntax, a bare &, an oversized section or header, and too many blocks', () => {
    const section = (text: string) => ({
      type: 'section' as const,
      text: { type: 'mrkdwn' as const, text, verbatim: true as const },
    });
    expect(blockKitViolations({ text: 'x', blocks: [section('<!channel>')] })).toEqual(['section 0: live < or >']);
    expect(blockKitViolations({ text: 'AT&T', blocks: [] })).toEqual(['text: bare &']);
    expect(blockKitViolations({ text: 'x', blocks: [section('a'.repeat(3_001))] })).toEqual(['section 0: 3001 chars']);
    expect(
      blockKitViolations({
        text: 'x',
        blocks: [{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }],
      }),
    ).toEqual(['header 0: 151 chars']);
    expect(
      blockKitViolations({ text: 'x', blocks: Array.from({ length: 51 }, () => ({ type: 'divider' as const })) }),
    ).toEqual(['blocks: 51']);
    expect(blockKitViolations({ text: '\ud83d', blocks: [] })).toEqual(['text: lone surrogate']);
  });
});
