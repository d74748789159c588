import { type TriggerMapping, webhookSecretNames } from '@diagnosis/core';
import { SettingsError } from '@diagnosis/core/config';
import { bearerTokenMatches, pagerDutySignatureMatches } from './webhook-auth.ts';

/** The credential of the webhook mappings that name no secret of their own: the source's shared SST secret. */
const SHARED_CREDENTIAL = 'shared';

type WebhookSource = 'alertmanager' | 'pagerduty';

/** The credential that authenticates a webhook mapping: its own secret's name, or {@link SHARED_CREDENTIAL}. */
function credentialOf(mapping: TriggerMapping): string | null {
  return mapping.source === 'cloudwatch' ? null : (mapping.secret ?? SHARED_CREDENTIAL);
}

/**
 * The values of the mappings' own secrets, read once at cold start through `read` (the handler reads
 * `Resource[name].value`): comma-separated during a rotation (at most 5), each 16–512 characters, printable ASCII
 * without spaces for a secret an Alertmanager mapping uses (it travels as `Authorization: Bearer <token>`). Unset or
 * `none`: left out, and that mapping's requests are refused. A bad value fails the cold start naming the secret,
 * never its value.
 */
export function parseMappingSecrets(
  mappings: readonly TriggerMapping[],
  read: (name: string) => string | undefined,
): ReadonlyMap<string, readonly string[]> {
  const secrets = new Map<string, readonly string[]>();
  const bad: string[] = [];
  for (const name of webhookSecretNames(mappings)) {
    const value = read(name);
    if (value === undefined || value === '' || value === 'none') continue;
    const bearer = mappings.some((mapping) => mapping.source === 'alertmanager' && mapping.secret === name);
    const values = value.split(',').map((part) => part.trim());
    const valid =
      values.length <= 5 &&
      values.every((part) => part.length >= 16 && part.length <= 512 && (!bearer || /^[\x21-\x7e]+$/.test(part)));
    if (valid) secrets.set(name, values);
    else bad.push(name);
  }
  if (bad.length > 0) throw new SettingsError(bad);
  return secrets;
}

/** What a webhook request proved: the credentials it holds, or why none. */
export type CredentialCheck =
  | { ok: true; granted: ReadonlySet<string> }
  | { ok: false; code: 'WEBHOOK_UNAUTHENTICATED' | 'WEBHOOK_BAD_SIGNATURE' };

/**
 * Which of the source's credentials a request proves: the shared secret and every secret the source's mappings name,
 * each checked in constant time, all of them (no early exit, so the time taken does not say which one matched).
 * Alertmanager: a bearer token equal to one of a credential's values; PagerDuty: a signature made with one of them.
 */
export function checkWebhookCredentials(
  source: WebhookSource,
  request: { authorization: string | undefined; signature: string | undefined; rawBody: Buffer },
  shared: readonly string[] | undefined,
  mappingSecrets: ReadonlyMap<string, readonly string[]>,
  mappings: readonly TriggerMapping[],
): CredentialCheck {
  const credentials = new Map<string, readonly string[]>();
  if (shared !== undefined) credentials.set(SHARED_CREDENTIAL, shared);
  for (const mapping of mappings) {
    if (mapping.source !== source || mapping.secret === undefined) continue;
    const values = mappingSecrets.get(mapping.secret);
    if (values !== undefined) credentials.set(mapping.secret, values);
  }
  const granted = new Set<string>();
  if (source === 'alertmanager') {
    for (const [name, values] of credentials) {
      let matched = false;
      for (const token of values) matched = bearerTokenMatches(request.authorization, token) || matched;
      if (matched) granted.add(name);
    }
    return granted.size > 0 ? { ok: true, granted } : { ok: false, code: 'WEBHOOK_UNAUTHENTICATED' };
  }
  let missing = credentials.size === 0;
  for (const [name, values] of credentials) {
    const verdict = pagerDutySignatureMatches(request.signature, request.rawBody, values);
    if (verdict === 'MISSING') missing = true;
    if (verdict === 'VALID') granted.add(name);
  }
  if (missing) return { ok: false, code: 'WEBHOOK_UNAUTHENTICATED' };
  return granted.size > 0 ? { ok: true, granted } : { ok: false, code: 'WEBHOOK_BAD_SIGNATURE' };
}

/** The mappings a request may use: every other source's, and this source's whose credential it proved. */
export function mappingsGranted(
  mappings: readonly TriggerMapping[],
  source: WebhookSource,
  granted: ReadonlySet<string>,
): TriggerMapping[] {
  return mappings.filter((mapping) => mapping.source !== source || granted.has(credentialOf(mapping) ?? ''));
}
