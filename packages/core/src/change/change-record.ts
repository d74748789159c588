import { createHash } from 'node:crypto';
import { boundSenderText } from '../run/run-trigger.ts';

/**
 * What changed, as the service keeps it: a deploy, a configuration change, a feature-flag flip or an infrastructure
 * change, each mapped to one enterprise by the stage file (never by a text of the event) and placed in time by when it
 * landed (a deploy: when it reached its environment, not when it was merged).
 */
export const CHANGE_KINDS = Object.freeze(['deploy', 'config', 'flag', 'infra'] as const);
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Where a change came from: a signed change webhook, GitHub's `deployment_status`, or a CloudTrail write event. */
export const CHANGE_SOURCES = Object.freeze(['webhook', 'github', 'cloudtrail'] as const);
export type ChangeSource = (typeof CHANGE_SOURCES)[number];

/**
 * The caps of a change's texts, in UTF-16 units: the same as the triggers' (a summary is cut like an alarm's reason,
 * marked `…`, never refused), so no sender's text can make a change fail forever or an item outgrow its bound.
 */
export const CHANGE_TEXT_CAPS = Object.freeze({
  service: 100,
  environment: 100,
  ref: 200,
  actor: 200,
  summary: 1_000,
  url: 1_000,
  eventId: 256,
  origin: 200,
});

/** One change, bounded and mapped: what the store keeps and the change stream shows. */
export interface ChangeRecord {
  /** The enterprise of the mapping that admitted it. */
  enterpriseId: string;
  source: ChangeSource;
  /** The mapping that admitted it: a change webhook's id, a repository (`owner/name`), an account and region. */
  origin: string;
  /** The sender's id of the event (its dedupe key within the source): a delivery id, CloudTrail's `eventID`. */
  eventId: string;
  /** When the change landed (UTC ISO, millisecond precision). */
  at: string;
  /** The service it changed (one of the mapping's services), or null when the mapping names none. */
  service: string | null;
  environment: string | null;
  kind: ChangeKind;
  /** What was deployed or changed: a version, a commit, a flag's name, an API call. */
  ref: string | null;
  actor: string | null;
  summary: string;
  /** Where a responder reads more (an `https` or `http` URL), or null. */
  url: string | null;
  /** When the service received it (UTC ISO). */
  receivedAt: string;
}

/**
 * A change's stable short id, `chg_` and 12 base-32 characters of the SHA-256 of its source, origin and event id: what
 * a row of the change stream names it by, and its item's key. NOTE: computed by code from the sender's id, so a
 * redelivery of the same event has the same id (it is stored once).
 */
export function changeIdOf(source: ChangeSource, origin: string, eventId: string): string {
  const digest = createHash('sha256').update(`${source}\u0000${origin}\u0000${eventId}`, 'utf8').digest();
  let bits = 0;
  let value = 0;
  let id = '';
  for (const byte of digest) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5 && id.length < 12) {
      id += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    if (id.length === 12) break;
  }
  return `chg_${id}`;
}
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A change id as {@link changeIdOf} writes it. */
export const CHANGE_ID_PATTERN = /^chg_[a-z2-7]{12}$/;

/** A sender's text as a change keeps it (one line, well-formed, cut and marked at its cap); null when empty. */
export function boundChangeText(text: string | null | undefined, cap: number): string | null {
  if (text === null || text === undefined) return null;
  const bounded = boundSenderText(text, cap);
  return bounded === '' ? null : bounded;
}

/**
 * A change's link as kept: an absolute `https:` or `http:` URL, re-serialised by the URL parser (spaces, quotes and
 * angle brackets percent-encoded), at most {@link CHANGE_TEXT_CAPS}`.url` characters, without `|` or credentials (a
 * chat's link syntax, a password in the link); anything else is no link.
 */
export function boundChangeUrl(text: string | null | undefined): string | null {
  if (typeof text !== 'string' || text.length > CHANGE_TEXT_CAPS.url) return null;
  const url = URL.canParse(text) ? new URL(text) : null;
  if (url === null) return null;
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '') return null;
  const href = url.href;
  if (href.length > CHANGE_TEXT_CAPS.url || /[|\s]/.test(href)) return null;
  return href;
}
