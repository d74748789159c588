/**
 * The result card docs/chat.md shows ("What the card looks like"), built from a scripted run by the real builders:
 * a published diagnosis asked in Slack, with a four-step plan, rated through Slack and through the API.
 */
import type { DiagnosisDraft, RunFeedback } from '@diagnosis/core';
import { buildRunFinishedEvent } from '../../functions/delivery/run-finished-event.ts';
import { buildDetailsReply, buildResultCard, type CardMessage } from '../../functions/slack/run-card.ts';
import { finishedRun, USAGE } from './finished-runs.ts';

const RUN_ID = 'slack-5f0c2a9e41d7b3c8e6f1a0d9b2c4e7f8a1b3c5d7e9';

const draft: DiagnosisDraft = {
  conclusion:
    'payment-gateway 的连接池在 14:02 的配置发布后从 200 缩小到 20，订单服务调用支付时等待连接超时，下单失败。',
  analysis: [
    {
      type: 'FINDING',
      statement: '14:05 起订单服务日志持续出现 "Timeout waiting for connection from pool"（payment-gateway 客户端）。',
      evidence_status: 'SUPPORTED',
      tool_call_ids: ['call_logs_1'],
      scope: 'order-service 14:00–14:30',
    },
    {
      type: 'FINDING',
      statement: 'payment-gateway 的 max_pool_size 在 14:02 由 200 改为 20（配置变更记录）。',
      evidence_status: 'SUPPORTED',
      tool_call_ids: ['call_mysql_2'],
      scope: null,
    },
  ],
  action_plan: [
    { step: '把 payment-gateway 的 max_pool_size 恢复为 200 并重新发布', purpose: '恢复下单' },
    { step: '观察订单服务的连接等待超时是否在 5 分钟内归零', purpose: '确认恢复' },
    { step: '核对 14:02 配置发布的审批记录', purpose: '找到变更来源' },
    { step: '在发布流水线中加入连接池大小的下限检查', purpose: '防止再次发生' },
  ],
  recommendations: ['连接池配置变更走灰度发布'],
  limitations: { checked_scope: ['order-service、payment-gateway 14:00–14:30 的日志与配置变更'], missing_info: [] },
};

function rating(caller: string, verdict: RunFeedback['verdict'], second: number): RunFeedback {
  return {
    runId: RUN_ID,
    enterpriseId: 'E1001',
    caller,
    callerKey: `key${second}`,
    sequence: 1,
    createdAt: `2026-12-06T09:3${second}:00.000Z`,
    verdict,
    rootCause: null,
    note: null,
  };
}

/** The example's result card and its thread reply, as Slack receives them. */
export async function cardExample(): Promise<{ card: CardMessage; thread: CardMessage }> {
  const run = await finishedRun('PUBLISHED', {
    runId: RUN_ID,
    sessionId: 'slack.5f0c2a9e41d7b3c8e6f1a0d9b2c4e7f8a1b3c5d7e9',
    query: '订单从 14:05 开始大量失败，为什么？',
    draft,
  });
  const report = {
    ...(run.report as object),
    seen_before: [
      {
        run_id: 'slack-0a1b2c3d',
        occurred_at: '2026-10-14T08:12:00.000Z',
        rating: 'CORRECT',
        tool_call_ids: ['call_logs_1'],
      },
    ],
  };
  const { detail } = buildRunFinishedEvent(
    { ...run, report, usage: { ...USAGE, totalTokens: 38_230 } },
    { apiUrl: 'https://a1b2c3.execute-api.eu-west-1.amazonaws.com' },
  );
  const origin = { kind: 'slack' as const, userId: 'U0ASKER01' };
  const ratings = [
    rating('slack:T0E1001AA:U0RATER01', 'CORRECT', 1),
    rating('arn:aws:sts::123456789012:assumed-role/OnCall/alice', 'PARTIALLY_CORRECT', 2),
  ];
  return { card: buildResultCard(detail, { origin, ratings }), thread: buildDetailsReply(detail, origin) };
}

/** A plan of eight steps, the Draft's most. */
export function eightStepDraft(): DiagnosisDraft {
  return {
    conclusion: 'payment-gateway 连接池缩小导致订单失败',
    analysis: [
      {
        type: 'FINDING',
        statement: '订单服务日志显示调用 payment-gateway 时连接池耗尽',
        evidence_status: 'SUPPORTED',
        tool_call_ids: ['call_logs_1'],
        scope: null,
      },
    ],
    action_plan: Array.from({ length: 8 }, (_, index) => ({
      step: `第 ${index + 1} 步：恢复 payment-gateway 连接池配置`,
      purpose: `目的 ${index + 1}`,
    })),
    recommendations: ['发布前检查连接池配置变更'],
    limitations: { checked_scope: ['E1001 订单服务 14:00–15:00 日志'], missing_info: [] },
  };
}
