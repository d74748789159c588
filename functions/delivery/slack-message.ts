/**
 * The Slack message of a result (incoming webhook, Block Kit; the card and its thread are made of the same parts):
 * a header with the status in a responder's words (no run or session id), the "AI-generated, review before acting"
 * line with who asked and the run's link, the question, the conclusion or "no conclusion", the first steps of the
 * published action plan; then how the run started, the whole plan, recommendations, up to five findings each with a
 * one-line description of its evidence, past incidents as leads, the limitations and open questions, usage.
 * NOTE: every text we did not write (the query, the Draft's text, the system's messages, ids) is escaped (`&`, `<`,
 * `>`), so no `<!channel>`, `<@U…>` or `<url|text>` in evidence or a Draft becomes live; and every mrkdwn text is
 * `verbatim`, so Slack does not turn bare URLs or channel names into links either. Within Slack's limits (50 blocks,
 * 3,000 characters a section, 150 a header); what does not fit is summarised, never cut inside a word.
 * NOTE: over 300 lines on purpose: one message made of the parts the card and its thread share, within one set of
 * limits.
 */
import { printable } from '@diagnosis/core';
import { CHANGES_LABEL, describeChange } from './change-lines.ts';
import { fitText } from './fit-text.ts';
import {
  CALLER_ORIGIN,
  describePastIncident,
  FIRST_PLAN_STEPS,
  originOf,
  plural,
  type RunOrigin,
  removedClaimsLine,
  resultHeadline,
  SEEN_BEFORE_LABEL,
  usageLine,
} from './result-words.ts';
import type { ResultChange, ResultFinding, RunFinishedDetail } from './run-finished-event.ts';

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

/** A Slack user id as Slack writes it (`U…`, `W…`): only such an id becomes a mention. */
const SLACK_USER = /^[UW][A-Z0-9]{2,20}$/;

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

/**
 * Numbered steps of the action plan, `from` on, each step and its purpose fitted so that all of them (at most the
 * Draft's 8) stay within one section; `more` says where the steps not shown are.
 */
function planSection(
  label: string,
  steps: RunFinishedDetail['actionPlan'],
  from: number,
  count: number,
  more = '',
): SlackBlock {
  const head = `*${label}*\n`;
  const shown = steps.slice(from, from + count);
  const room = Math.floor((SLACK_LIMITS.sectionText - head.length - more.length - 1) / Math.max(shown.length, 1));
  const lines = shown.map((item, index) => {
    const number = `${from + index + 1}. `;
    const stepChars = Math.floor((room - number.length - 6) * 0.6);
    const step = fitText(item.step, stepChars, escapeSlack).text;
    const purpose = fitText(item.purpose, room - number.length - 6 - step.length, escapeSlack).text;
    return `${number}${step} — _${purpose}_`;
  });
  return { type: 'section', text: mrkdwn(head + lines.join('\n') + (more === '' ? '' : `\n${more}`)) };
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

/** Who asked, in the notice line (mrkdwn we wrote; the rest escaped). */
export function askedBy(origin: RunOrigin): string {
  if (origin.kind === 'slack') {
    return origin.userId !== null && SLACK_USER.test(origin.userId) ? `Asked by <@${origin.userId}>` : 'Asked in Slack';
  }
  if (origin.kind === 'alarm') {
    const name = origin.title === null || origin.title === '' ? origin.incidentKey : origin.title;
    const source = `Alarm (${fitText(origin.source, 64, escapeSlack).text})`;
    return name === '' ? source : `${source}: ${fitText(name, 300, escapeSlack).text}`;
  }
  return 'Asked by a person through the API, the command line or Slack';
}

/** How the run started, as the details say it (the thread's first line). */
function describeOrigin(origin: RunOrigin, followUp: boolean): string {
  const follow = followUp ? ' · it answers a follow-up question in this conversation' : '';
  if (origin.kind === 'slack') {
    const who = origin.userId !== null && SLACK_USER.test(origin.userId) ? ` by <@${origin.userId}>` : '';
    return `Started from Slack${who}${follow}`;
  }
  if (origin.kind === 'alarm') {
    return `Triggered by ${fitText(origin.source, 100, escapeSlack).text} · incident \`${fitText(origin.incidentKey, 200, escapeCodeSpan).text}\`${follow}`;
  }
  return `${CALLER_ORIGIN}${follow}`;
}

/** The link to the run (ours: the API's URL with the run id percent-encoded), as mrkdwn. */
function runLinkText(url: string, label = 'Open the run (GET /runs)'): string {
  const safe = url.replaceAll('|', '%7C').replaceAll('<', '%3C').replaceAll('>', '%3E').replaceAll('&', '&amp;');
  return `<${safe}|${label}>`;
}

/**
 * A result as Slack shows it, in two parts: the summary a responder reads first (the status, the AI notice with who
 * asked and the run's link, the question, the conclusion or "no conclusion", the first steps of the action plan), and
 * the details (how the run started, the whole plan, recommendations, findings with their evidence, past incidents as
 * leads, limitations, usage). `more` is where the summary says the rest of the plan is.
 */
export interface SlackResult {
  summary: SlackBlock[];
  details: SlackBlock[];
  /** The notification's text. */
  text: string;
}

export function buildSlackResult(
  detail: RunFinishedDetail,
  origin: RunOrigin = originOf(detail),
  more: 'thread' | 'below' = 'below',
): SlackResult {
  const headline = resultHeadline(detail);
  const link = detail.links.run === null ? '' : ` · ${runLinkText(detail.links.run)}`;
  const summary: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: fitText(headline, SLACK_LIMITS.headerText).text } },
    { type: 'context', elements: [mrkdwn(`:warning: *${AI_NOTICE}* ${askedBy(origin)}${link}`)] },
    section(detail.followUp ? 'Follow-up question' : 'Question', detail.query),
  ];
  if (detail.conclusion !== null) summary.push(section('Conclusion', detail.conclusion));
  else summary.push(section('No conclusion', detail.message ?? 'The diagnosis published no conclusion.'));
  const plan = detail.actionPlan;
  if (plan.length > 0) {
    const rest = plan.length - FIRST_PLAN_STEPS;
    const note = rest > 0 ? `_…and ${plural(rest, 'more step')} ${more === 'thread' ? 'in the thread' : 'below'}_` : '';
    summary.push(planSection('First steps', plan, 0, FIRST_PLAN_STEPS, note));
  }

  const details: SlackBlock[] = [{ type: 'context', elements: [mrkdwn(describeOrigin(origin, detail.followUp))] }];
  if (plan.length > FIRST_PLAN_STEPS) details.push(planSection('Action plan', plan, 0, plan.length));
  if (detail.recommendations.length > 0) details.push(listSection('Recommendations', detail.recommendations));
  if (detail.findings.length > 0) {
    detail.findings.slice(0, SLACK_MAX_FINDINGS).forEach((finding, index) => {
      details.push(findingBlock(finding, index));
    });
    if (detail.findings.length > SLACK_MAX_FINDINGS) {
      const rest = detail.findings.length - SLACK_MAX_FINDINGS;
      details.push({ type: 'context', elements: [mrkdwn(`…and ${plural(rest, 'more finding')} in the run.`)] });
    }
  }
  if (detail.seenBefore.length > 0) {
    const lines = detail.seenBefore.slice(0, LIST_ITEMS).map((past) => {
      const open = past.link === null ? '' : ` · ${runLinkText(past.link, 'open it')}`;
      return `• ${describePastIncident(past)}${open}`;
    });
    if (detail.seenBefore.length > LIST_ITEMS) lines.push(`_…and ${detail.seenBefore.length - LIST_ITEMS} more_`);
    details.push({
      type: 'section',
      text: mrkdwn(`*${SEEN_BEFORE_LABEL}*\n${lines.join('\n')}`),
    });
  }
  if (detail.changes.length > 0) details.push(changesSection(detail.changes.slice(0, LIST_ITEMS)));
  const removed = removedClaimsLine(detail.removedClaims);
  if (removed !== null) details.push({ type: 'context', elements: [mrkdwn(removed)] });
  if (detail.limitations.checkedScope.length > 0) details.push(listSection('Checked', detail.limitations.checkedScope));
  if (detail.limitations.missingInfo.length > 0) {
    details.push(listSection('Open questions', detail.limitations.missingInfo));
  }
  details.push({
    type: 'context',
    elements: [mrkdwn(escapeSlack(usageLine(detail))), mrkdwn(`Run \`${escapeCodeSpan(detail.runId)}\``)],
  });
  // NOTE: the one link is ours: the API's URL from the deploy with the run id percent-encoded.
  if (detail.links.run !== null) details.push({ type: 'section', text: mrkdwn(runLinkText(detail.links.run)) });

  const text = fitText(
    `${headline}: ${detail.conclusion ?? 'no conclusion'} — ${AI_NOTICE}`,
    SLACK_LIMITS.fallbackText,
    escapeSlack,
  ).text;
  return { summary, details, text };
}

/** The Block Kit message of a result event's detail (an incoming webhook): the summary, then the details. */
export function buildSlackMessage(detail: RunFinishedDetail, origin: RunOrigin = originOf(detail)): SlackMessage {
  const result = buildSlackResult(detail, origin, 'below');
  const blocks: SlackBlock[] = [...result.summary, { type: 'divider' }, ...result.details];
  return { text: result.text, blocks: blocks.slice(0, SLACK_LIMITS.blocks) };
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

/** The changes the findings name, each with its link (the sender's URL, escaped for mrkdwn's link syntax). */
function changesSection(changes: readonly ResultChange[]): SlackBlock {
  const line = (change: ResultChange) =>
    `• ${fitText(describeChange(change), 300, escapeSlack).text}${change.url === null ? '' : ` · ${runLinkText(change.url, 'open')}`}`;
  return { type: 'section', text: mrkdwn(`*${CHANGES_LABEL}*\n${changes.map(line).join('\n')}`) };
}
