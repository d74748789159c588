/**
 * The Slack message of a result (incoming webhook, Block Kit): a header with the status, the "AI-generated, review
 * before acting" line, the conclusion or "no conclusion", up to five findings each with a one-line description of
 * its evidence, the limitations and open questions, the trigger, usage and a link to the run.
 * NOTE: every text we did not write (the query, the Draft's text, the system's messages, ids) is escaped (`&`, `<`,
 * `>`), so no `<!channel>`, `<@U…>` or `<url|text>` in evidence or a Draft becomes live; and every mrkdwn text is
 * `verbatim`, so Slack does not turn bare URLs or channel names into links either. Within Slack's limits (50 blocks,
 * 3,000 characters a section, 150 a header); what does not fit is summarised, never cut inside a word.
 */
import { printable } from '@diagnosis/core';
import { fitText } from './fit-text.ts';
import type { ResultFinding, RunFinishedDetail } from './run-finished-event.ts';

export const SLACK_LIMITS = Object.freeze({ blocks: 50, sectionText: 3_000, headerText: 150, fallbackText: 3_000 });
/** Findings shown one by one; the rest are counted. */
export const SLACK_MAX_FINDINGS = 5;
/** Each finding's statement, items of a list: short enough that a message stays readable. */
const FINDING_CHARS = 600;
const LIST_ITEM_CHARS = 300;
const LIST_ITEMS = 5;

export const AI_NOTICE = 'AI-generated, review before acting.';

export type SlackTextObject = { type: 'mrkdwn'; text: string; verbatim: true } | { type: 'plain_text'; text: string };
export type SlackBlock =
  | { type: 'header'; text: { type: 'plain_text'; text: string } }
  | { type: 'section'; text: SlackTextObject }
  | { type: 'context'; elements: SlackTextObject[] }
  | { type: 'divider' };

export interface SlackMessage {
  /** The notification's text (shown where blocks are not). */
  text: string;
  blocks: SlackBlock[];
}

/** Escapes the three characters Slack's mrkdwn gives meaning to (Slack's own rule for text you did not write). */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * Text for inside one of our inline code spans: escaped like any other text, and its backticks shown as a look-alike
 * (U+02CB): Slack has no escape for a backtick in a code span, so one from an alarm's key would close our span and let
 * the rest be read as formatting.
 */
function escapeCodeSpan(text: string): string {
  return escapeSlack(text).replaceAll('`', 'ˋ');
}

const STATUS_LINE: Record<RunFinishedDetail['status'], string> = {
  PUBLISHED: 'Diagnosis published',
  FALLBACK: 'Diagnosis without a verified conclusion',
  FAILED: 'Diagnosis failed',
  CANCELLED: 'Diagnosis cancelled',
};

const mrkdwn = (text: string): SlackTextObject => ({ type: 'mrkdwn', text, verbatim: true });

/** A section of our own label and escaped, fitted text of others. */
function section(label: string, raw: string): SlackBlock {
  const head = `*${label}*\n`;
  return {
    type: 'section',
    text: mrkdwn(head + fitText(raw, SLACK_LIMITS.sectionText - head.length, escapeSlack).text),
  };
}

/** A bulleted list: at most `LIST_ITEMS` items, each fitted; the rest counted. */
function listSection(label: string, items: readonly string[]): SlackBlock {
  const head = `*${label}*\n`;
  const shown = items.slice(0, LIST_ITEMS).map((item) => `• ${fitText(item, LIST_ITEM_CHARS, escapeSlack).text}`);
  if (items.length > LIST_ITEMS) shown.push(`_…and ${items.length - LIST_ITEMS} more in the run_`);
  return { type: 'section', text: mrkdwn(head + shown.join('\n')) };
}

/** A finding's evidence in one line: the checks it cites by tool, with how many answered with no rows. */
export function describeEvidence(finding: ResultFinding): string {
  if (finding.citations.length === 0) return 'no cited checks';
  const byTool = new Map<string, { count: number; empty: number }>();
  for (const citation of finding.citations) {
    const entry = byTool.get(citation.toolName) ?? { count: 0, empty: 0 };
    entry.count += 1;
    if (citation.empty) entry.empty += 1;
    byTool.set(citation.toolName, entry);
  }
  return [...byTool.entries()]
    .map(([tool, { count, empty }]) => `${tool} ×${count}${empty > 0 ? ` (${empty} with no rows)` : ''}`)
    .join(', ');
}

function findingBlock(finding: ResultFinding, index: number): SlackBlock {
  const label = `${index + 1}. ${finding.type} · ${finding.evidenceStatus}`;
  const statement = fitText(finding.statement, FINDING_CHARS, escapeSlack).text;
  const scope = finding.scope === null ? '' : `\n_Scope:_ ${fitText(finding.scope, LIST_ITEM_CHARS, escapeSlack).text}`;
  const evidence = `\n_Evidence:_ ${escapeSlack(describeEvidence(finding))}`;
  return { type: 'section', text: mrkdwn(`*${label}*\n${statement}${scope}${evidence}`) };
}

/** The Block Kit message of a result event's detail. */
export function buildSlackMessage(detail: RunFinishedDetail): SlackMessage {
  const statusLine = STATUS_LINE[detail.status];
  const header = fitText(`${statusLine} · ${detail.enterpriseId}`, SLACK_LIMITS.headerText).text;
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: header } },
    {
      type: 'context',
      elements: [
        mrkdwn(
          `:warning: *${AI_NOTICE}* Run \`${escapeSlack(detail.runId)}\` · session \`${escapeSlack(detail.sessionId)}\` · ${detail.status}${detail.stopReason === null ? '' : ` · ${detail.stopReason}`}${detail.errorCode === null ? '' : ` · ${escapeSlack(detail.errorCode)}`}`,
        ),
      ],
    },
    section('Question', detail.query),
  ];
  if (detail.conclusion !== null) blocks.push(section('Conclusion', detail.conclusion));
  else blocks.push(section('No conclusion', detail.message ?? 'The diagnosis published no conclusion.'));

  if (detail.findings.length > 0) {
    blocks.push({ type: 'divider' });
    detail.findings.slice(0, SLACK_MAX_FINDINGS).forEach((finding, index) => {
      blocks.push(findingBlock(finding, index));
    });
    if (detail.findings.length > SLACK_MAX_FINDINGS) {
      const more = detail.findings.length - SLACK_MAX_FINDINGS;
      blocks.push({
        type: 'context',
        elements: [mrkdwn(`…and ${more} more finding${more === 1 ? '' : 's'} in the run.`)],
      });
    }
  }
  if (detail.limitations.checkedScope.length > 0) blocks.push(listSection('Checked', detail.limitations.checkedScope));
  if (detail.limitations.missingInfo.length > 0) {
    blocks.push(listSection('Open questions', detail.limitations.missingInfo));
  }
  blocks.push({ type: 'divider' });
  const trigger =
    detail.trigger === null
      ? 'Started through the API'
      : `Triggered by ${fitText(detail.trigger.source, 100, escapeSlack).text} · incident \`${fitText(detail.trigger.incidentKey, 200, escapeCodeSpan).text}\``;
  const usage =
    detail.usage === null
      ? 'no model calls'
      : `${detail.usage.modelCalls} model calls · ${detail.usage.toolCalls} checks · ${detail.usage.totalTokens} tokens${detail.cost === null ? '' : ` · $${detail.cost.amount.toFixed(4)}`}`;
  blocks.push({ type: 'context', elements: [mrkdwn(trigger), mrkdwn(usage)] });
  // NOTE: the one link is ours: the API's URL from the deploy with the run id percent-encoded.
  if (detail.links.run !== null) blocks.push(linkBlock(detail.links.run));

  const fallback = fitText(
    `${statusLine} (${detail.enterpriseId}): ${detail.conclusion ?? 'no conclusion'} — ${AI_NOTICE}`,
    SLACK_LIMITS.fallbackText,
    escapeSlack,
  ).text;
  return { text: fallback, blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
}

function linkBlock(url: string): SlackBlock {
  const safe = url.replaceAll('|', '%7C').replaceAll('<', '%3C').replaceAll('>', '%3E').replaceAll('&', '&amp;');
  return { type: 'section', text: mrkdwn(`<${safe}|Open the run (GET /runs)>`) };
}

/**
 * The message as a terminal shows it (what `diagnosis trigger` prints for a Slack destination): one paragraph per
 * block, Slack's escapes undone and control characters replaced, so hostile text cannot drive the terminal.
 */
export function renderSlackMessageForTerminal(message: SlackMessage): string {
  const unescaped = (text: string) => text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
  const lines = message.blocks.map((block) => {
    if (block.type === 'divider') return '────────────────────────────────';
    if (block.type === 'header') return `# ${block.text.text}`;
    if (block.type === 'context') return block.elements.map((element) => unescaped(element.text)).join('   ');
    return unescaped(block.text.text);
  });
  return printable(lines.join('\n\n'));
}
