import type { DiagnosisDraft, RunFeedback } from '@diagnosis/core';
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
import { eightStepDraft } from '../../../support/card-example.ts';
import { finishedRun } from '../../../support/finished-runs.ts';

const API = 'https://api.example.com';
const HOSTILE = '<!channel> 回滚 <@U024BE7LH> <https://evil.example/login|点此> & <!here> *bold* `x`';
const subject = {
  runId: 'run-1',
  enterpriseId: 'E1001',
  query: HOSTILE,
  origin: { kind: 'alarm' as const, source: '<!channel>', incidentKey: '', title: null },
  followUp: false,
};
const ASKER = { kind: 'slack' as const, userId: 'U0ASKER01' };
/** A run id and session id as Slack-started runs have them (46 characters each). */
const RUN_ID = 'slack-0123456789abcdef0123456789abcdef01234567'.slice(0, 46);

function rating(caller: string, verdict: RunFeedback['verdict'], sequence = 1): RunFeedback {
  return {
    runId: RUN_ID,
    enterpriseId: 'E1001',
    caller,
    callerKey: caller.replace(/\W/g, '').slice(-40),
    sequence,
    createdAt: `2026-12-01T00:00:0${sequence}.000Z`,
    verdict,
    rootCause: null,
    note: null,
  };
}

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
  it('says what is investigated and which alarm, marked AI-generated, every text of others escaped', () => {
    const card = buildStartedCard(subject);
    expect(blockKitViolations(textBlocks(card))).toEqual([]);
    const json = JSON.stringify(card.blocks);
    expect(json).toContain('Diagnosing · E1001');
    expect(json).toContain('Alarm (&lt;!channel&gt;)');
    expect(json).not.toContain('run-1');
    expect(json).toContain('AI-generated');
    expect(json).toContain('&lt;!channel&gt;');
    expect(json).not.toContain('<!channel>');
    expect(json).not.toContain('<@U024BE7LH>');
  });

  it('names a follow-up as one', () => {
    expect(JSON.stringify(buildStartedCard({ ...subject, followUp: true }).blocks)).toContain('Follow-up question');
  });

  it('names the Slack user who asked as a mention', () => {
    const card = buildStartedCard({ ...subject, origin: ASKER });
    expect(blockKitViolations(textBlocks(card), ['<@U0ASKER01>'])).toEqual([]);
    expect(JSON.stringify(card.blocks)).toContain('Asked by <@U0ASKER01>');
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
    const card = buildResultCard(detail, { origin: ASKER, ratings: [] });
    expect(
      blockKitViolations(textBlocks(card), ['<@U0ASKER01>', `<${API}/runs/${run.runId}|Open the run (GET /runs)>`]),
    ).toEqual([]);
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
  });

  it("shows every rater's latest verdict and who gave it, from the API, the command line and Slack", async () => {
    const { detail } = buildRunFinishedEvent(await finishedRun('PUBLISHED', { runId: RUN_ID }), { apiUrl: API });
    const ratings = [
      rating('slack:T0E1001AA:U0RATER01', 'WRONG', 1),
      rating('arn:aws:sts::123456789012:assumed-role/OnCall/alice', 'CORRECT', 2),
      rating('local:<!channel>bob', 'PARTIALLY_CORRECT', 3),
      rating('slack:T0E1001AA:U0RATER01', 'CORRECT', 4),
      rating('something-else', 'UNHELPFUL', 5),
    ];
    const card = buildResultCard(detail, { origin: ASKER, ratings });
    const line = card.blocks.at(-1);
    expect(line).toEqual({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          verbatim: true,
          text:
            'Rated *Correct* by alice (API), <@U0RATER01> · *Partially correct* by &lt;!channel&gt;bob (command line)' +
            ' · *Unhelpful* by an API caller · thank you. Details in the thread.',
        },
      ],
    });
    expect(JSON.stringify(card.blocks)).not.toContain('123456789012');
  });

  it('says "no conclusion" honestly for a FALLBACK, and the failure in words for a FAILED run', async () => {
    const fallback = buildResultCard(buildRunFinishedEvent(await finishedRun('FALLBACK')).detail, {
      origin: ASKER,
      ratings: [],
    });
    expect(JSON.stringify(fallback.blocks)).toContain('No conclusion');
    const failed = buildResultCard(buildRunFinishedEvent(await finishedRun('FAILED')).detail, {
      origin: ASKER,
      ratings: [],
    });
    expect(JSON.stringify(failed.blocks)).toContain('模型服务调用失败');
  });

  it('offers no rating on a cancelled run', async () => {
    const cancelled = buildResultCard(buildRunFinishedEvent(await finishedRun('CANCELLED')).detail, {
      origin: ASKER,
      ratings: [],
    });
    expect(cancelled.blocks.some((block) => block.type === 'actions')).toBe(false);
  });
});

describe('buildDetailsReply', () => {
  it('puts each finding with its evidence, the limitations and the run link in the thread reply, escaped', async () => {
    const run = await finishedRun('PUBLISHED', { draft: hostileDraft() });
    const { detail } = buildRunFinishedEvent(run, { apiUrl: API });
    const reply = buildDetailsReply(detail, ASKER);
    const allowed = [`<${API}/runs/${run.runId}|Open the run (GET /runs)>`, '<@U0ASKER01>'];
    expect(blockKitViolations(reply as never, allowed)).toEqual([]);
    const json = JSON.stringify(reply.blocks);
    expect(json).toContain('Evidence');
    expect(json).toContain('Open questions');
    expect(json).toContain('AI-generated');
  });

  it('names how the run started: Slack and who, an alarm and its incident, or the API', async () => {
    const run = await finishedRun('PUBLISHED');
    const { detail } = buildRunFinishedEvent(run);
    const first = (origin: Parameters<typeof buildDetailsReply>[1]) =>
      JSON.stringify(buildDetailsReply(detail, origin).blocks[1]);
    expect(first(ASKER)).toContain('Started from Slack by <@U0ASKER01>');
    expect(first(ASKER)).not.toContain('API');
    expect(first({ kind: 'alarm', source: 'cloudwatch', incidentKey: 'order-5xx', title: 'order 5xx' })).toContain(
      'Triggered by cloudwatch · incident `order-5xx`',
    );
    expect(first({ kind: 'caller' })).toContain('Started by a person through the API, the command line or Slack');
  });

  it('shows the whole action plan, the recommendations, and a past incident marked as a lead, numbers formatted', async () => {
    const run = await finishedRun('PUBLISHED', { draft: eightStepDraft() });
    const report = {
      ...(run.report as object),
      seen_before: [
        {
          run_id: 'run-past-1',
          occurred_at: '2026-11-02T03:04:05.000Z',
          rating: 'CORRECT',
          tool_call_ids: ['call_logs_1'],
        },
      ],
    };
    const usage = { ...(run.usage as NonNullable<typeof run.usage>), totalTokens: 38_230 };
    const { detail } = buildRunFinishedEvent({ ...run, report, usage }, { apiUrl: API });
    const reply = buildDetailsReply(detail, ASKER);
    const allowed = [
      `<${API}/runs/${run.runId}|Open the run (GET /runs)>`,
      `<${API}/runs/run-past-1|open it>`,
      '<@U0ASKER01>',
    ];
    expect(blockKitViolations(reply as never, allowed)).toEqual([]);
    const json = JSON.stringify(reply.blocks);
    for (let step = 1; step <= 8; step += 1) expect(json).toContain(`${step}. 第 ${step} 步`);
    expect(json).toContain('*Recommendations*');
    expect(json).toContain('Seen before — a lead the run looked at, not evidence');
    expect(json).toContain('A past incident of 2026-11-02, rated correct');
    expect(json).toContain('38,230 tokens');
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
