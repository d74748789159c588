/**
 * The result card for each outcome a responder meets — published, fallback, failed, a follow-up — and what each says
 * (the status in words, who asked, the plan's first steps, no run or session id in the header); what the judge removed
 * never shown anywhere; and the example docs/examples/slack-card.json is what the builders make.
 */
import { readFileSync } from 'node:fs';
import { applyVerdicts } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { buildPagerDutyNote } from '../../../../functions/delivery/pagerduty-note.ts';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import { buildTeamsMessage } from '../../../../functions/delivery/teams-card.ts';
import { buildDetailsReply, buildResultCard, type CardMessage } from '../../../../functions/slack/run-card.ts';
import { blockKitViolations } from '../../../support/block-kit.ts';
import { cardExample, eightStepDraft } from '../../../support/card-example.ts';
import { finishedRun } from '../../../support/finished-runs.ts';

const API = 'https://api.example.com';
const EXAMPLE_LINK =
  '<https://a1b2c3.execute-api.eu-west-1.amazonaws.com/runs/slack-5f0c2a9e41d7b3c8e6f1a0d9b2c4e7f8a1b3c5d7e9|Open the run (GET /runs)>';
const ASKER = { kind: 'slack' as const, userId: 'U0ASKER01' };
/** A run id and session id as Slack-started runs have them (46 characters each). */
const RUN_ID = 'slack-0123456789abcdef0123456789abcdef01234567'.slice(0, 46);
const SESSION_ID = 'slack.0123456789abcdef0123456789abcdef01234567'.slice(0, 46);

/** The card without its actions block (`blockKitViolations` checks text blocks; buttons are checked apart). */
const textBlocks = (message: CardMessage) =>
  ({ text: message.text, blocks: message.blocks.filter((block) => block.type !== 'actions') }) as never;

describe('the result card a responder reads', () => {
  /** The header and the notice line under it: what a responder reads first. */
  const top = (card: CardMessage) => JSON.stringify(card.blocks.slice(0, 2));
  const build = async (kind: 'PUBLISHED' | 'FALLBACK' | 'FAILED', followUp = false) => {
    const run = await finishedRun(kind, { runId: RUN_ID, sessionId: SESSION_ID, draft: eightStepDraft() });
    const { detail } = buildRunFinishedEvent({ ...run, continueSession: followUp }, { apiUrl: API });
    return buildResultCard(detail, { origin: ASKER, ratings: [] });
  };

  it('of a published run: "Diagnosed", who asked, the conclusion, the first steps of the plan, the run linked', async () => {
    const card = await build('PUBLISHED');
    expect(card.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Diagnosed · E1001' } });
    expect(top(card)).toContain('Asked by <@U0ASKER01>');
    expect(top(card)).toContain(`<${API}/runs/${RUN_ID}|Open the run (GET /runs)>`);
    const json = JSON.stringify(card.blocks);
    expect(json).toContain('*Conclusion*\\npayment-gateway 连接池缩小导致订单失败');
    expect(json).toContain('*First steps*\\n1. 第 1 步：恢复 payment-gateway 连接池配置 — _目的 1_');
    expect(json).toContain('3. 第 3 步');
    expect(json).not.toContain('4. 第 4 步');
    expect(json).toContain('…and 5 more steps in the thread');
  });

  it('of a fallback: the honest "no conclusion" in words, and no plan (nothing was published)', async () => {
    const card = await build('FALLBACK');
    expect(card.blocks[0]).toMatchObject({ text: { text: 'No conclusion — evidence insufficient · E1001' } });
    expect(top(card)).toContain('Asked by <@U0ASKER01>');
    const json = JSON.stringify(card.blocks);
    expect(json).toContain('*No conclusion*');
    expect(json).not.toContain('First steps');
    expect(json).not.toContain('第 1 步');
  });

  it('of a failed run: "Failed", the failure in words, no plan', async () => {
    const card = await build('FAILED');
    expect(card.blocks[0]).toMatchObject({ text: { text: 'Failed · E1001' } });
    expect(JSON.stringify(card.blocks)).toContain('模型服务调用失败');
    expect(JSON.stringify(card.blocks)).not.toContain('First steps');
  });

  it('of a follow-up: says it answers a follow-up, with its plan and who asked', async () => {
    const card = await build('PUBLISHED', true);
    expect(card.blocks[0]).toMatchObject({ text: { text: 'Follow-up · Diagnosed · E1001' } });
    const json = JSON.stringify(card.blocks);
    expect(json).toContain('*Follow-up question*');
    expect(json).toContain('1. 第 1 步');
    expect(top(card)).toContain('Asked by <@U0ASKER01>');
  });

  it.each([
    ['PUBLISHED', false],
    ['FALLBACK', false],
    ['FAILED', false],
    ['PUBLISHED', true],
  ] as const)(
    'of a %s run (follow-up: %s) prints no run or session id, nor a raw status word',
    async (kind, followUp) => {
      const card = await build(kind, followUp);
      const header = JSON.stringify(card.blocks[0]);
      const withoutLinks = top(card).replaceAll(`${API}/runs/${RUN_ID}`, '');
      for (const raw of [RUN_ID, SESSION_ID, 'PUBLISHED', 'FALLBACK', 'FAILED', 'SUCCEEDED']) {
        expect(header).not.toContain(raw);
        expect(withoutLinks).not.toContain(raw);
      }
      expect(
        blockKitViolations(textBlocks(card), ['<@U0ASKER01>', `<${API}/runs/${RUN_ID}|Open the run (GET /runs)>`]),
      ).toEqual([]);
    },
  );
});

describe('the documented example docs/examples/slack-card.json', () => {
  it('is exactly the card and thread reply the builders make of its scripted run', async () => {
    const example = JSON.parse(readFileSync('docs/examples/slack-card.json', 'utf8'));
    expect(example).toEqual(JSON.parse(JSON.stringify(await cardExample())));
    expect(blockKitViolations(textBlocks(example.card), ['<@U0ASKER01>', '<@U0RATER01>', EXAMPLE_LINK])).toEqual([]);
  });
});

describe('what the judge removed', () => {
  it.each([
    ['as the release words it now (by its place in the Draft)', false],
    ['in a run stored by an earlier version, whose limitation lines quoted it', true],
  ])(
    'never reaches the card, its thread, the Teams card or the PagerDuty note, %s: it is counted',
    async (_label, quoting) => {
      const draft = eightStepDraft();
      const removedFinding = '支付网关的证书在 14:01 过期（无依据的说法）';
      const removedAdvice = '立即重启全部数据库实例（无依据的建议）';
      const [finding] = draft.analysis;
      if (finding === undefined) throw new Error('no finding');
      const judged = {
        ...draft,
        analysis: [...draft.analysis, { ...finding, type: 'HYPOTHESIS' as const, statement: removedFinding }],
        recommendations: [...draft.recommendations, removedAdvice],
      };
      const supported = (count: number) =>
        Array.from({ length: count }, (_, index) => ({ index, verdict: 'SUPPORTED' as const, reason: '有证据' }));
      const decision = applyVerdicts(judged, {
        conclusion: { verdict: 'SUPPORTED', reason: '有证据' },
        analysis: [...supported(1), { index: 1, verdict: 'UNSUPPORTED', reason: '证据不支持' }],
        recommendations: [...supported(1), { index: 1, verdict: 'UNCLEAR', reason: '证据不足' }],
        action_plan: supported(8),
      });
      if (decision.kind !== 'ACCEPTED') throw new Error('rejected');
      // The run as the release stores it: the trimmed Draft published, the judge's removals in its report.
      expect(JSON.stringify(decision.draft)).not.toContain(removedFinding);
      expect(JSON.stringify(decision.draft)).not.toContain(removedAdvice);
      const [, , ...own] = decision.draft.limitations.missing_info;
      const missing = quoting
        ? [
            `语义校验（证据不支持）已移除：“${removedFinding}”——证据不支持`,
            `语义校验（证据不足以判断）已移除建议：“${removedAdvice}”——证据不足`,
            ...own,
          ]
        : decision.draft.limitations.missing_info;
      const stored = { ...decision.draft, limitations: { ...decision.draft.limitations, missing_info: missing } };
      const run = await finishedRun('PUBLISHED', { runId: RUN_ID, draft: stored });
      const report = {
        ...(run.report as object),
        semantic_guard: {
          removed: decision.removed,
          removed_recommendations: decision.removedRecommendations,
          removed_action_plan: decision.removedActionPlan,
        },
      };
      const { detail } = buildRunFinishedEvent(
        { ...run, report, trigger: { source: 'pagerduty', incidentKey: 'PT4KHLK' } },
        { apiUrl: API },
      );
      expect(detail.removedClaims).toBe(2);
      const sent = [
        JSON.stringify(buildResultCard(detail, { origin: ASKER, ratings: [] })),
        JSON.stringify(buildDetailsReply(detail, ASKER)),
        JSON.stringify(buildTeamsMessage(detail)),
        JSON.parse(buildPagerDutyNote(detail)?.body ?? '{}').note.content as string,
      ];
      for (const text of sent) {
        expect(text).not.toContain(removedFinding);
        expect(text).not.toContain(removedAdvice);
        expect(text).not.toContain('语义校验');
      }
      for (const text of sent.slice(1)) expect(text).toContain('2 claims were removed: the judge did not find them');
    },
  );
});
