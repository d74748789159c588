import type { ResultChange } from './run-finished-event.ts';

/** The label of the changes a result's findings name, in every destination's words. */
export const CHANGES_LABEL = 'Changes cited';

const PLACEMENT_WORDS: Record<string, string> = {
  BEFORE_WINDOW: 'before the incident window',
  BEFORE_SYMPTOM: 'before the symptom began',
  AFTER_SYMPTOM: 'after the symptom began',
};

/**
 * One cited change in words, without its link: `deploy payment-gateway v3.8.0, landed 2026-11-30 06:01 UTC, before
 * the symptom began: Argo CD synced …`. The caller escapes it for its destination and adds the link its own way.
 */
export function describeChange(change: ResultChange): string {
  const what = [change.kind, change.service, change.ref].filter((part) => part !== null && part !== '').join(' ');
  const landed = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(change.at)
    ? `${change.at.slice(0, 16).replace('T', ' ')} UTC`
    : change.at;
  const placement = change.placement === null ? '' : `, ${PLACEMENT_WORDS[change.placement] ?? change.placement}`;
  return `${what}, landed ${landed}${placement}: ${change.summary}`;
}
