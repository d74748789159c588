/**
 * The SNS message of a result: plain text for email subscribers (the PagerDuty note is the same text) with the Slack
 * card's content in the same order (`result-words.ts`), and a one-line form for SMS (SNS's
 * `MessageStructure: 'json'`, one text per protocol). SNS subjects are ASCII without line breaks, at most 100
 * characters: the subject names only the status, the enterprise and the run, all of which are ours or checked ids.
 */
import { printable } from '@diagnosis/core';
import { CHANGES_LABEL, describeChange } from './change-lines.ts';
import { fitText } from './fit-text.ts';
import {
  describeOriginText,
  describePastIncident,
  originOf,
  removedClaimsLine,
  resultHeadline,
  SEEN_BEFORE_LABEL,
  usageLine,
} from './result-words.ts';
import type { RunFinishedDetail } from './run-finished-event.ts';
import { AI_NOTICE, describeEvidence, SLACK_MAX_FINDINGS } from './slack-message.ts';

export const SNS_LIMITS = Object.freeze({ subject: 100, sms: 140, text: 16_000 });
/** The question as the text shows it: long enough to read, short enough never to push the plan past a cut. */
const QUESTION_CHARS = 2_000;

export interface SnsMessage {
  subject: string;
  /** `MessageStructure: 'json'`: `default` and `email` get the full text, `sms` the one line. */
  message: { default: string; email: string; sms: string };
}

/** Plain text: control characters (escape sequences in evidence) replaced, lines kept. */
const plain = (text: string) => printable(text);

export function buildSnsMessage(detail: RunFinishedDetail): SnsMessage {
  const subject = fitText(
    `Diagnosis ${detail.status}: ${detail.enterpriseId} run ${detail.runId}`.replace(/[^\x20-\x7e]/g, '?'),
    SNS_LIMITS.subject,
  ).text.replace(/[^\x20-\x7e]/g, '.');
  // NOTE: what a responder acts on first (the status in words, how it started, the question, the conclusion, the
  // published plan) comes before everything a cut may drop; the question is bounded so it cannot push the plan out.
  const lines = [
    `${resultHeadline(detail)} — ${AI_NOTICE}`,
    plain(describeOriginText(originOf(detail), detail.followUp)),
    ...(detail.links.run === null ? [] : [`Run: ${detail.links.run}`]),
    '',
    `${detail.followUp ? 'Follow-up question' : 'Question'}: ${fitText(plain(detail.query), QUESTION_CHARS).text}`,
    '',
    detail.conclusion === null
      ? `No conclusion. ${plain(detail.message ?? '')}`.trim()
      : `Conclusion: ${plain(detail.conclusion)}`,
  ];
  if (detail.actionPlan.length > 0) {
    lines.push('', 'Action plan:');
    detail.actionPlan.forEach((item, index) => {
      lines.push(`${index + 1}. ${plain(item.step)} — ${plain(item.purpose)}`);
    });
  }
  if (detail.recommendations.length > 0) {
    lines.push('', 'Recommendations:', ...detail.recommendations.map((item) => `- ${plain(item)}`));
  }
  detail.findings.slice(0, SLACK_MAX_FINDINGS).forEach((finding, index) => {
    lines.push('', `${index + 1}. [${finding.type} · ${finding.evidenceStatus}] ${plain(finding.statement)}`);
    if (finding.scope !== null) lines.push(`   Scope: ${plain(finding.scope)}`);
    lines.push(`   Evidence: ${describeEvidence(finding)}`);
  });
  if (detail.findings.length > SLACK_MAX_FINDINGS) {
    lines.push('', `…and ${detail.findings.length - SLACK_MAX_FINDINGS} more findings in the run.`);
  }
  if (detail.changes.length > 0) {
    lines.push(
      '',
      `${CHANGES_LABEL}:`,
      ...detail.changes.map((change) => `- ${describeChange(change)}${change.url === null ? '' : `: ${change.url}`}`),
    );
  }
  if (detail.seenBefore.length > 0) {
    lines.push('', `${SEEN_BEFORE_LABEL}:`);
    for (const past of detail.seenBefore) {
      lines.push(`- ${describePastIncident(past)}${past.link === null ? '' : `: ${past.link}`}`);
    }
  }
  const removed = removedClaimsLine(detail.removedClaims);
  if (removed !== null) lines.push('', removed);
  if (detail.limitations.checkedScope.length > 0) {
    lines.push('', 'Checked:', ...detail.limitations.checkedScope.map((item) => `- ${plain(item)}`));
  }
  if (detail.limitations.missingInfo.length > 0) {
    lines.push('', 'Open questions:', ...detail.limitations.missingInfo.map((item) => `- ${plain(item)}`));
  }
  lines.push('', usageLine(detail), `Enterprise: ${detail.enterpriseId}   Run id: ${detail.runId}`);
  const text = fitText(lines.join('\n'), SNS_LIMITS.text).text;
  const sms = fitText(
    plain(
      `Diagnosis ${detail.status} ${detail.enterpriseId}: ${detail.conclusion ?? 'no conclusion'} (AI, review)`,
    ).replace(/\s+/g, ' '),
    SNS_LIMITS.sms,
  ).text;
  return { subject, message: { default: text, email: text, sms } };
}

/** The SNS text as a terminal shows it (the email form). */
export function renderSnsMessageForTerminal(message: SnsMessage): string {
  return `Subject: ${message.subject}\n\n${message.message.email}`;
}
