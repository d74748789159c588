/**
 * The Microsoft Teams message of a result, for a Teams Workflows webhook: one Adaptive Card, one way, with the Slack
 * card's content in the same order (`result-words.ts`): the status in words, how the run started, the question, the
 * conclusion, the published action plan (its first steps first), recommendations, findings, past incidents as leads,
 * limitations and usage; no run or session id (the run is linked). NOTE: text we
 * did not write goes into `TextRun`s of `RichTextBlock`s, which Teams renders as plain text (a `TextBlock` would read
 * Markdown, so `[x](https://…)` in evidence would become a link); our own labels are `TextBlock`s. The one link is
 * ours (the run's URL, an `Action.OpenUrl`). No buttons that post back: those need a Teams bot. Within Teams' message
 * size (about 28 KB): at most `SLACK_MAX_FINDINGS` findings, each text fitted, the tail dropped first.
 */
import { printable } from '@diagnosis/core';
import { fitText } from './fit-text.ts';
import {
  describeOriginText,
  describePastIncident,
  FIRST_PLAN_STEPS,
  originOf,
  removedClaimsLine,
  resultHeadline,
  SEEN_BEFORE_LABEL,
  usageLine,
} from './result-words.ts';
import type { RunFinishedDetail } from './run-finished-event.ts';
import { AI_NOTICE, describeEvidence, SLACK_MAX_FINDINGS } from './slack-message.ts';

/** Teams refuses a message over about 28 KB; the card stays under this many bytes of JSON. */
export const TEAMS_MAX_BYTES = 24 * 1024;
const TEXT_CHARS = 2_000;
const ITEM_CHARS = 300;

type CardElement = Record<string, unknown>;

const label = (text: string, extra: Record<string, unknown> = {}): CardElement => ({
  type: 'TextBlock',
  text,
  wrap: true,
  ...extra,
});
/** Text of others: plain, control characters replaced, fitted. */
const plain = (text: string, max = TEXT_CHARS): CardElement => ({
  type: 'RichTextBlock',
  inlines: [{ type: 'TextRun', text: fitText(printable(text), max).text }],
});

/** Teams shows the whole result in one message (no thread): what comes first is kept when the card is too large. */
export function buildTeamsMessage(detail: RunFinishedDetail): Record<string, unknown> {
  const bold = { weight: 'Bolder' };
  const plan = detail.actionPlan;
  const step = (index: number) => {
    const item = plan[index];
    return item === undefined ? [] : [plain(`${index + 1}. ${item.step} — ${item.purpose}`, 700)];
  };
  // NOTE: what a responder acts on first, never dropped: the status in words, the notice, how the run started, the
  // question, the conclusion (or why there is none) and the first steps of the published plan.
  const first: CardElement[] = [
    label(resultHeadline(detail), { size: 'Large', weight: 'Bolder' }),
    label(`⚠ ${AI_NOTICE}`, { isSubtle: true }),
    plain(describeOriginText(originOf(detail), detail.followUp), ITEM_CHARS),
    label(detail.followUp ? 'Follow-up question' : 'Question', bold),
    plain(detail.query),
    label(detail.conclusion === null ? 'No conclusion' : 'Conclusion', bold),
    plain(detail.conclusion ?? detail.message ?? 'The diagnosis published no conclusion.'),
  ];
  if (plan.length > 0) {
    first.push(label('Action plan', bold));
    for (let index = 0; index < Math.min(FIRST_PLAN_STEPS, plan.length); index += 1) first.push(...step(index));
  }
  const rest: CardElement[] = [];
  for (let index = FIRST_PLAN_STEPS; index < plan.length; index += 1) rest.push(...step(index));
  if (detail.recommendations.length > 0) {
    rest.push(label('Recommendations', bold));
    for (const item of detail.recommendations) rest.push(plain(`• ${item}`, ITEM_CHARS));
  }
  detail.findings.slice(0, SLACK_MAX_FINDINGS).forEach((finding, index) => {
    rest.push(label(`${index + 1}. ${finding.type} · ${finding.evidenceStatus}`, bold));
    rest.push(plain(finding.statement, 600));
    rest.push(plain(`Evidence: ${describeEvidence(finding)}`, ITEM_CHARS));
  });
  if (detail.findings.length > SLACK_MAX_FINDINGS) {
    rest.push(label(`…and ${detail.findings.length - SLACK_MAX_FINDINGS} more findings in the run.`));
  }
  if (detail.seenBefore.length > 0) {
    rest.push(label(SEEN_BEFORE_LABEL, bold));
    for (const past of detail.seenBefore.slice(0, 5)) rest.push(plain(`• ${describePastIncident(past)}`, ITEM_CHARS));
  }
  const removed = removedClaimsLine(detail.removedClaims);
  if (removed !== null) rest.push(label(removed, { isSubtle: true }));
  for (const [title, items] of [
    ['Checked', detail.limitations.checkedScope],
    ['Open questions', detail.limitations.missingInfo],
  ] as const) {
    if (items.length === 0) continue;
    rest.push(label(title, bold));
    for (const item of items.slice(0, 5)) rest.push(plain(`• ${item}`, ITEM_CHARS));
  }
  rest.push(label(usageLine(detail), { isSubtle: true }));
  const body = [...first, ...rest];
  const card: Record<string, unknown> = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    body,
    ...(detail.links.run === null
      ? {}
      : { actions: [{ type: 'Action.OpenUrl', title: 'Open the run (GET /runs)', url: detail.links.run }] }),
  };
  const message = {
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  };
  // NOTE: a card that is too large loses what comes last first (usage, lists, findings, the later steps), never what
  // `first` holds.
  while (body.length > first.length && Buffer.byteLength(JSON.stringify(message)) > TEAMS_MAX_BYTES) body.pop();
  return message;
}
