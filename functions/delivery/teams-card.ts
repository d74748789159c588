/**
 * The Microsoft Teams message of a result, for a Teams Workflows webhook: one Adaptive Card, one way. NOTE: text we
 * did not write goes into `TextRun`s of `RichTextBlock`s, which Teams renders as plain text (a `TextBlock` would read
 * Markdown, so `[x](https://…)` in evidence would become a link); our own labels are `TextBlock`s. The one link is
 * ours (the run's URL, an `Action.OpenUrl`). No buttons that post back: those need a Teams bot. Within Teams' message
 * size (about 28 KB): at most `SLACK_MAX_FINDINGS` findings, each fitted.
 */
import { printable } from '@diagnosis/core';
import { fitText } from './fit-text.ts';
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

const STATUS_LINE: Record<RunFinishedDetail['status'], string> = {
  PUBLISHED: 'Diagnosis published',
  FALLBACK: 'Diagnosis without a verified conclusion',
  FAILED: 'Diagnosis failed',
  CANCELLED: 'Diagnosis cancelled',
};

/** The Workflows webhook's body: `{ type: 'message', attachments: [ one Adaptive Card ] }`. */
export function buildTeamsMessage(detail: RunFinishedDetail): Record<string, unknown> {
  const body: CardElement[] = [
    label(`${STATUS_LINE[detail.status]} · ${detail.enterpriseId}`, { size: 'Large', weight: 'Bolder' }),
    label(`⚠ ${AI_NOTICE}`, { isSubtle: true }),
    plain(`Run ${detail.runId} · session ${detail.sessionId} · ${detail.status}`, ITEM_CHARS),
    label('Question', { weight: 'Bolder' }),
    plain(detail.query),
    label(detail.conclusion === null ? 'No conclusion' : 'Conclusion', { weight: 'Bolder' }),
    plain(detail.conclusion ?? detail.message ?? 'The diagnosis published no conclusion.'),
  ];
  detail.findings.slice(0, SLACK_MAX_FINDINGS).forEach((finding, index) => {
    body.push(label(`${index + 1}. ${finding.type} · ${finding.evidenceStatus}`, { weight: 'Bolder' }));
    body.push(plain(finding.statement, 600));
    body.push(plain(`Evidence: ${describeEvidence(finding)}`, ITEM_CHARS));
  });
  if (detail.findings.length > SLACK_MAX_FINDINGS) {
    body.push(label(`…and ${detail.findings.length - SLACK_MAX_FINDINGS} more findings in the run.`));
  }
  for (const [title, items] of [
    ['Checked', detail.limitations.checkedScope],
    ['Open questions', detail.limitations.missingInfo],
  ] as const) {
    if (items.length === 0) continue;
    body.push(label(title, { weight: 'Bolder' }));
    for (const item of items.slice(0, 5)) body.push(plain(`• ${item}`, ITEM_CHARS));
  }
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
  // NOTE: a card that is still too large loses its findings and lists, never its status, notice and conclusion.
  if (Buffer.byteLength(JSON.stringify(message)) > TEAMS_MAX_BYTES) card.body = body.slice(0, 7);
  return message;
}
