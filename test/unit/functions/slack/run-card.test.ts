import type { DiagnosisDraft } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import {
  buildDetailsReply,
  buildNoticeMessage,
  buildProgressCard,
  buildRatingModal,
  buildResultCard,
  buildStartedCard,
  type CardMessage,
} from '../../../../functions/slack/run-card.ts';
import { blockKitViolations } from '../../../support/block-kit.ts';
import { finishedRun } from '../../../support/finished-runs.ts';

const API = 'https://api.example.com';
const HOSTILE = '<!channel> 回滚 <@U024BE7LH> <https://evil.example/login|点此> & <!here> *bold* `x`';
const subject = { runId: 'run-1', enterpriseId: 'E1001', query: HOSTILE, startedBy: '<!channel>', followUp: false };

/** The card without its actions block (`blockKitViolations` checks text blocks; buttons are checked apart). */
const textBlocks = (message: CardMessage) =>
  ({ text: message.text, blocks: message.blocks.filter((block) => block.type !== 'actions') }) as never;

function hostileDraft(): DiagnosisDraft {
  return {
    conclusion: HOSTILE.repeat(10),
    analysis: Array.from({ length: 8 }, (_, index) => ({
      type: 'FINDING' as const,
      statement: `${HOSTILE} ${index}`,
      evidence_status: 'SUPPORTED' as const,
      tool_call_ids: [`call_${index}`],
      scope: HOSTILE,
    })),
    action_plan: [],
    recommendations: [],
    limitations: { checked_scope: [HOSTILE], missing_info: [HOSTILE] },
  };
}

describe('buildStartedCard', () => {
  it('says what is investigated and for whom, marked AI-generated, every text of others escaped', () => {
    const card = buildStartedCard(subject);
    expect(blockKitViolations(textBlocks(card))).toEqual([]);
    const json = JSON.stringify(card.blocks);
    expect(json).toContain('Diagnosing · E1001');
    expect(json).toContain('AI-generated');
    expect(json).toContain('&lt;!channel&gt;');
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<@U024BE7LH>');
  });

  it('names a follow-up as one', () => {
    expect(JSON.stringify(buildStartedCard({ ...subject, followUp: true }).blocks)).toContain('Follow-up question');
  });
});

describe('buildProgressCard', () => {
  it('shows the rounds, checks and the evidence being read (the last three checks)', () => {
    const card = buildProgressCard(subject, {
      modelCalls: 3,
      toolCalls: 4,
      rejectedToolCalls: 0,
      totalTokens: 9_000,
      checks: (['query_logs', 'query_mysql', 'search_knowledge', 'query_logs'] as const).map((toolName, index) => ({
        toolCallId: `c${index}`,
        toolName,
        status: 'READY' as const,
        empty: false,
        evaluation: null,
      })),
    } as never);
    const last = card.blocks.at(-1);
    expect(last).toEqual({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          verbatim: true,
          text: 'Round 3 · 4 checks · reading query_mysql, search_knowledge, query_logs',
        },
      ],
    });
    expect(blockKitViolations(textBlocks(card))).toEqual([]);
  });
});

describe('buildResultCard', () => {
  it('replaces the card with the result, the four rating buttons and the note button, within limits', async () => {
    const run = await finishedRun('PUBLISHED', { draft: hostileDraft(), query: HOSTILE });
    const { detail } = buildRunFinishedEvent(run, { apiUrl: API });
    const card = buildResultCard(detail, { count: 0 });
    expect(blockKitViolations(textBlocks(card))).toEqual([]);
    const actions = card.blocks.find((block) => block.type === 'actions');
    expect(actions).toMatchObject({ type: 'actions', block_id: 'rating' });
    const elements = actions?.type === 'actions' ? actions.elements : [];
    expect(elements.map((element) => element.action_id)).toEqual([
      'rate_correct',
      'rate_partially_correct',
      'rate_wrong',
      'rate_unhelpful',
      'rate_note',
    ]);
    for (const element of elements) {
      expect(element.value).toBe(run.runId);
      expect(element.text.text.length).toBeLessThanOrEqual(75);
    }
    expect(JSON.stringify(card.blocks)).toContain('Not rated yet');
    expect(JSON.stringify(buildResultCard(detail, { count: 2 }).blocks)).toContain('Rated 2 times');
  });

  it('says "no conclusion" honestly for a FALLBACK, and the failure in words for a FAILED run', async () => {
    const fallback = buildResultCard(buildRunFinishedEvent(await finishedRun('FALLBACK')).detail, { count: 0 });
    expect(JSON.stringify(fallback.blocks)).toContain('No conclusion');
    const failed = buildResultCard(buildRunFinishedEvent(await finishedRun('FAILED')).detail, { count: 0 });
    expect(JSON.stringify(failed.blocks)).toContain('模型服务调用失败');
  });

  it('offers no rating on a cancelled run', async () => {
    const cancelled = buildResultCard(buildRunFinishedEvent(await finishedRun('CANCELLED')).detail, { count: 0 });
    expect(cancelled.blocks.some((block) => block.type === 'actions')).toBe(false);
  });
});

describe('buildDetailsReply', () => {
  it('puts each finding with its evidence, the limitations and the run link in the thread reply, escaped', async () => {
    const run = await finishedRun('PUBLISHED', { draft: hostileDraft() });
    const { detail } = buildRunFinishedEvent(run, { apiUrl: API });
    const reply = buildDetailsReply(detail);
    if (reply === null) throw new Error('no reply');
    expect(blockKitViolations(reply as never, [`<${API}/runs/${run.runId}|Open the run (GET /runs)>`])).toEqual([]);
    const json = JSON.stringify(reply.blocks);
    expect(json).toContain('Evidence');
    expect(json).toContain('Open questions');
    expect(json).toContain('AI-generated');
  });
});

describe('buildNoticeMessage', () => {
  it('escapes its text', () => {
    expect(buildNoticeMessage('<!here> & <@U1>').blocks).toEqual([
      { type: 'section', text: { type: 'mrkdwn', verbatim: true, text: '&lt;!here&gt; &amp; &lt;@U1&gt;' } },
    ]);
  });
});

describe('buildRatingModal', () => {
  it('carries the card it rates as metadata and bounds its inputs as the feedback path does', () => {
    const modal = buildRatingModal({ channelId: 'C0E1001AA', messageTs: '1796018000.000100', runId: 'run-1' });
    expect(JSON.parse(modal.private_metadata)).toEqual({
      channelId: 'C0E1001AA',
      messageTs: '1796018000.000100',
      runId: 'run-1',
    });
    expect(JSON.stringify(modal.blocks)).toContain('"max_length":1000');
    expect(JSON.stringify(modal.blocks)).toContain('"max_length":2000');
  });
});
