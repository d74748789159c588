/**
 * The card, its thread and the incoming webhook's message hold Block Kit's limits whatever the run published (and
 * the Teams card and the PagerDuty note, the same content, their own limits), as a
 * property (fast-check, fixed seed): every text at its schema's longest (the Draft's 1,000-character conclusion and
 * statements, eight 300-character plan steps and purposes, ten 300-character limitations, a 16 KB question, a
 * 256-character alarm title and a 1,024-character incident key, twenty past incidents, a hundred raters with 2 KB
 * identities), made of what expands when escaped (`&`, `<`, `>`), CJK, emoji and mention syntax.
 */
import type { DiagnosisDraft, RunFeedback } from '@diagnosis/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPagerDutyNote, PAGERDUTY_NOTE_CHARS } from '../../../../functions/delivery/pagerduty-note.ts';
import { FIRST_PLAN_STEPS, RESPONDER_STATUS, type RunOrigin } from '../../../../functions/delivery/result-words.ts';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import { buildSlackMessage } from '../../../../functions/delivery/slack-message.ts';
import { buildTeamsMessage, TEAMS_MAX_BYTES } from '../../../../functions/delivery/teams-card.ts';
import { buildDetailsReply, buildResultCard, type CardMessage } from '../../../../functions/slack/run-card.ts';
import { blockKitViolations } from '../../../support/block-kit.ts';
import { finishedRun } from '../../../support/finished-runs.ts';
import { propertyRuns } from '../../../support/property-runs.ts';

const API = 'https://api.example.com';
const PIECES = ['&', '<', '>', '<!channel>', '订单服务', '👨‍👩‍👧‍👦', ' ', 'connection', '`', '*', '\n', 'x'.repeat(40)];
/** A text of `min`–`max` characters made of pieces that grow when escaped (cut to `max` on a code point). */
const text = (min: number, max: number) =>
  fc
    .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 6 })), { minLength: 1, maxLength: max })
    .map((parts) => {
      let joined = parts.join('');
      while (joined.length < min) joined += PIECES[joined.length % PIECES.length];
      return [...joined].slice(0, max).join('').slice(0, max);
    });
const longest = (max: number) => fc.oneof(text(max, max), text(1, max));

const draft: fc.Arbitrary<DiagnosisDraft> = fc.record({
  conclusion: fc.option(longest(1_000), { nil: null }),
  analysis: fc.array(
    fc.record({
      type: fc.constantFrom('FINDING' as const, 'HYPOTHESIS' as const, 'NEGATIVE_OBSERVATION' as const),
      statement: longest(1_000),
      evidence_status: fc.constantFrom('SUPPORTED' as const, 'NO_EVIDENCE' as const),
      tool_call_ids: fc.constant(['call_1', 'call_2', 'call_3']),
      scope: fc.option(longest(300), { nil: null }),
    }),
    { maxLength: 10 },
  ),
  action_plan: fc.array(fc.record({ step: longest(300), purpose: longest(300) }), { maxLength: 8 }),
  recommendations: fc.array(longest(300), { maxLength: 8 }),
  limitations: fc.record({
    checked_scope: fc.array(longest(300), { maxLength: 10 }),
    missing_info: fc.array(longest(300), { maxLength: 10 }),
  }),
});
const origin: fc.Arbitrary<RunOrigin> = fc.oneof(
  fc.record({ kind: fc.constant('slack' as const), userId: fc.constantFrom('U0ASKER01', null, '<!here>') }),
  fc.record({
    kind: fc.constant('alarm' as const),
    source: longest(64),
    incidentKey: longest(1_024),
    title: fc.option(longest(256), { nil: null }),
  }),
  fc.constant({ kind: 'caller' as const }),
);
const caller = fc.oneof(
  fc.constantFrom('slack:T0E1001AA:U0RATER01', 'slack:T0GUEST01:W0RATER02'),
  longest(2_048).map((name) => `local:${name}`),
  longest(2_000).map((name) => `arn:aws:sts::123456789012:assumed-role/OnCall/${name}`),
  longest(2_048),
);
const ratings = fc.array(
  fc.record({ caller, verdict: fc.constantFrom('CORRECT', 'PARTIALLY_CORRECT', 'WRONG', 'UNHELPFUL' as const) }),
  { maxLength: 100 },
);
const seenBefore = fc.array(
  fc.record({
    run_id: fc.stringMatching(/^[a-z0-9-]{1,128}$/),
    occurred_at: longest(64),
    rating: fc.constantFrom('CORRECT', 'PARTIALLY_CORRECT'),
  }),
  { maxLength: 20 },
);

/** Our own live syntax: the mentions and links the builders write; anything else must be escaped. */
function ours(message: CardMessage, runIds: string[]): string[] {
  const links = runIds.flatMap((id) => [
    `<${API}/runs/${encodeURIComponent(id)}|Open the run (GET /runs)>`,
    `<${API}/runs/${encodeURIComponent(id)}|open it>`,
  ]);
  const mentions = [...JSON.stringify(message).matchAll(/<@[UW][A-Z0-9]{2,20}>/g)].map((match) => match[0]);
  return [...links, ...mentions];
}
const textBlocks = (message: CardMessage) =>
  ({ text: message.text, blocks: message.blocks.filter((block) => block.type !== 'actions') }) as never;

describe('buildResultCard, buildDetailsReply, buildSlackMessage, buildTeamsMessage and buildPagerDutyNote', () => {
  it('hold their limits (Block Kit, Teams, PagerDuty) with the longest texts a run can publish (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('PUBLISHED' as const, 'FALLBACK' as const, 'FAILED' as const),
        draft,
        longest(16_384),
        origin,
        ratings,
        seenBefore,
        fc.boolean(),
        async (kind, published, query, from, rated, seen, followUp) => {
          const run = await finishedRun(kind, { draft: published, query });
          const report = kind === 'PUBLISHED' ? { ...(run.report as object), seen_before: seen } : run.report;
          const { detail } = buildRunFinishedEvent({ ...run, report, continueSession: followUp }, { apiUrl: API });
          const feedback: RunFeedback[] = rated.map((entry, index) => ({
            runId: run.runId,
            enterpriseId: 'E1001',
            caller: entry.caller,
            callerKey: `k${index}`,
            sequence: 1,
            createdAt: '2026-12-01T00:00:00.000Z',
            verdict: entry.verdict,
            rootCause: null,
            note: null,
          }));
          const runIds = [run.runId, ...seen.map((past) => past.run_id)];
          const card = buildResultCard(detail, { origin: from, ratings: feedback });
          expect(blockKitViolations(textBlocks(card), ours(card, runIds))).toEqual([]);
          for (const block of card.blocks) {
            if (block.type !== 'actions') continue;
            expect(block.elements.length).toBeLessThanOrEqual(25);
            for (const button of block.elements) {
              expect(button.text.text.length).toBeLessThanOrEqual(75);
              expect(button.value.length).toBeLessThanOrEqual(2_000);
            }
          }
          const reply = buildDetailsReply(detail, from);
          expect(blockKitViolations(reply as never, ours(reply, runIds))).toEqual([]);
          const message = buildSlackMessage(detail, from);
          expect(blockKitViolations(message, ours(message, runIds))).toEqual([]);
          // The same content in the Teams card and the PagerDuty note, each within its own limit.
          const teams = JSON.stringify(buildTeamsMessage(detail));
          expect(Buffer.byteLength(teams)).toBeLessThanOrEqual(TEAMS_MAX_BYTES);
          expect(teams.isWellFormed()).toBe(true);
          const note = buildPagerDutyNote({ ...detail, trigger: { source: 'pagerduty', incidentKey: 'PT4KHLK' } });
          const content: string = JSON.parse(note?.body ?? '{}').note.content;
          expect(content.length).toBeLessThanOrEqual(PAGERDUTY_NOTE_CHARS);
          expect(content.isWellFormed()).toBe(true);
          for (const text of [teams, content]) expect(text).toContain(RESPONDER_STATUS[detail.status]);
          // The plan's steps are all there: a short plan on the card, a longer one whole in the thread.
          const steps = detail.actionPlan.length;
          const whole = JSON.stringify((steps > FIRST_PLAN_STEPS ? reply : card).blocks);
          for (let step = 1; step <= steps; step += 1) expect(whole).toContain(`\\n${step}. `);
        },
      ),
      propertyRuns(300, 25, 20_261_206),
    );
  }, 120_000);
});
