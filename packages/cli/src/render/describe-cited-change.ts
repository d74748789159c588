import { type CitedChange, printable } from '@diagnosis/core';

/** The heading of the changes a run's published items name, in the terminal report and on the trace page. */
export const CITED_CHANGES_HEADING = '相关变更 Changes cited';

/** Where code placed a change against the symptom, in a reader's words. */
const PLACEMENT_WORDS: Record<string, string> = {
  BEFORE_WINDOW: 'before the incident window',
  BEFORE_SYMPTOM: 'before the symptom began',
  AFTER_SYMPTOM: 'after the symptom began',
};

/**
 * One cited change in one line: `deploy payment-gateway v3.8.0 · landed 2026-11-30 06:01 UTC, before the symptom
 * began · Argo CD synced … · chg_… (call_2)`. NOTE: its texts are as the model saw them (masked), made printable.
 */
export function describeCitedChange(change: CitedChange): string {
  const landed = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(change.at)
    ? `${change.at.slice(0, 16).replace('T', ' ')} UTC`
    : change.at;
  const placement = change.placement === null ? '' : `, ${PLACEMENT_WORDS[change.placement] ?? change.placement}`;
  const what = [change.kind, change.service, change.ref].filter((part) => part !== null && part !== '').join(' ');
  const checks = change.tool_call_ids.join(', ');
  return printable(`${what} · landed ${landed}${placement} · ${change.summary} · ${change.change_id} (${checks})`);
}

/** A change's link when it is an `https:` or `http:` URL (the only links a change keeps), else null. */
export function changeLink(change: CitedChange): string | null {
  return change.url !== null && /^https?:\/\/[^\s|<>"]+$/.test(change.url) ? change.url : null;
}
