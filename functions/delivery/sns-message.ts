/**
 * The SNS message of a result: plain text for email subscribers and a one-line form for SMS (SNS's
 * `MessageStructure: 'json'`, one text per protocol). SNS subjects are ASCII without line breaks, at most 100
 * characters: the subject names only the status, the enterprise and the run, all of which are ours or checked ids.
 */
import { printable } from '@diagnosis/core';
import { fitText } from './fit-text.ts';
import type { RunFinishedDetail } from './run-finished-event.ts';
import { AI_NOTICE, describeEvidence, SLACK_MAX_FINDINGS } from './slack-message.ts';

export const SNS_LIMITS = Object.freeze({ subject: 100, sms: 140, text: 16_000 });

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
  const lines = [
    `${detail.status} — ${AI_NOTICE}`,
    `Enterprise: ${detail.enterpriseId}   Run: ${detail.runId}   Session: ${detail.sessionId}`,
    detail.trigger === null
      ? 'Started through the API'
      : `Trigger: ${plain(detail.trigger.source)} · incident ${plain(detail.trigger.incidentKey)}`,
    '',
    `Question: ${plain(detail.query)}`,
    '',
    detail.conclusion === null
      ? `No conclusion. ${plain(detail.message ?? '')}`.trim()
      : `Conclusion: ${plain(detail.conclusion)}`,
  ];
  detail.findings.slice(0, SLACK_MAX_FINDINGS).forEach((finding, index) => {
    lines.push('', `${index + 1}. [${finding.type} · ${finding.evidenceStatus}] ${plain(finding.statement)}`);
    if (finding.scope !== null) lines.push(`   Scope: ${plain(finding.scope)}`);
    lines.push(`   Evidence: ${describeEvidence(finding)}`);
  });
  if (detail.findings.length > SLACK_MAX_FINDINGS) {
    lines.push('', `…and ${detail.findings.length - SLACK_MAX_FINDINGS} more findings in the run.`);
  }
  if (detail.limitations.checkedScope.length > 0) {
    lines.push('', 'Checked:', ...detail.limitations.checkedScope.map((item) => `- ${plain(item)}`));
  }
  if (detail.limitations.missingInfo.length > 0) {
    lines.push('', 'Open questions:', ...detail.limitations.missingInfo.map((item) => `- ${plain(item)}`));
  }
  if (detail.links.run !== null) lines.push('', `Run: ${detail.links.run}`);
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
