import { createHash } from 'node:crypto';
import { CHANGE_TEXT_CAPS, type ChangeRecord } from '@diagnosis/core';

/**
 * What a change source's parser decided about one event: a change to record, or why it records nothing (each is
 * counted): the event is not a change (a GitHub `ping` or `push`, a deployment still in progress, a read-only or failed
 * AWS call, a Flux event without a revision), or no mapping takes it (a repository, service, environment or account
 * the stage file does not map to an enterprise).
 */
export type ChangeDecision = { kind: 'change'; change: ChangeRecord } | { kind: 'ignored'; code: ChangeIgnoredCode };

const CHANGE_IGNORED_CODES = Object.freeze(['NOT_A_CHANGE', 'UNMAPPED'] as const);
export type ChangeIgnoredCode = (typeof CHANGE_IGNORED_CODES)[number];

/** An instant as a change keeps it: UTC ISO with milliseconds. */
export const utcInstant = (epochMs: number) => new Date(epochMs).toISOString();

/** An ISO 8601 instant with a zone (`Z` or an offset), as every sender writes one; at most 64 characters. */
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A sender's event id as a change keeps it: the text itself, or its SHA-256 when it is longer than the cap. */
export function boundedEventId(text: string): string {
  return text.length <= CHANGE_TEXT_CAPS.eventId && text.length > 0
    ? text
    : `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
