/**
 * Slack's Block Kit limits, as Slack documents them, checked on a message: at most 50 blocks; a header's text is
 * plain_text of at most 150 characters; a section's text at most 3,000; a context at most 10 elements. And our own
 * rule: no live mrkdwn syntax but the links we wrote (`allowedLinks`): every `<`/`>` is escaped, every `&` starts an
 * escape, and no text holds a lone surrogate (a cut inside an emoji).
 */
import type { SlackMessage } from '../../functions/delivery/slack-message.ts';

export function blockKitViolations(message: SlackMessage, allowedLinks: readonly string[] = []): string[] {
  const violations: string[] = [];
  if (message.blocks.length > 50) violations.push(`blocks: ${message.blocks.length}`);
  const texts: { where: string; text: string; mrkdwn: boolean }[] = [
    { where: 'text', text: message.text, mrkdwn: true },
  ];
  message.blocks.forEach((block, index) => {
    if (block.type === 'header') {
      if (block.text.type !== 'plain_text') violations.push(`header ${index} not plain_text`);
      if (block.text.text.length > 150) violations.push(`header ${index}: ${block.text.text.length} chars`);
      texts.push({ where: `header ${index}`, text: block.text.text, mrkdwn: false });
    } else if (block.type === 'section') {
      if (block.text.text.length > 3_000) violations.push(`section ${index}: ${block.text.text.length} chars`);
      texts.push({ where: `section ${index}`, text: block.text.text, mrkdwn: block.text.type === 'mrkdwn' });
    } else if (block.type === 'context') {
      if (block.elements.length > 10) violations.push(`context ${index}: ${block.elements.length} elements`);
      for (const element of block.elements) {
        if (element.text.length > 3_000) violations.push(`context ${index}: ${element.text.length} chars`);
        texts.push({ where: `context ${index}`, text: element.text, mrkdwn: element.type === 'mrkdwn' });
      }
    }
  });
  for (const { where, text, mrkdwn } of texts) {
    if (!text.isWellFormed()) violations.push(`${where}: lone surrogate`);
    if (!mrkdwn) continue;
    let rest = text;
    for (const link of allowedLinks) rest = rest.replaceAll(link, '');
    if (/[<>]/.test(rest)) violations.push(`${where}: live < or >`);
    if (/&(?!amp;|lt;|gt;)/.test(rest)) violations.push(`${where}: bare &`);
  }
  return violations;
}
