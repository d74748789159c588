import { type ChangeSourceMapping, changeSecretNames } from '@diagnosis/core';
import { SettingsError } from '@diagnosis/core/config';

/**
 * The values of the change sources' secrets, read once at cold start through `read` (the handler reads
 * `Resource[name].value`): comma-separated during a rotation (at most 5), each 16–512 characters, printable ASCII
 * without spaces for a secret a `bearer` source uses (it travels as `Authorization: Bearer <token>`). Unset or `none`:
 * left out, and that source's requests are refused. A bad value fails the cold start naming the secret, never its
 * value. NOTE: the rules of the trigger webhooks' own secrets (functions/triggers/mapping-credentials.ts).
 */
export function parseChangeSecrets(
  sources: readonly ChangeSourceMapping[],
  read: (name: string) => string | undefined,
): ReadonlyMap<string, readonly string[]> {
  const secrets = new Map<string, readonly string[]>();
  const bad: string[] = [];
  for (const name of changeSecretNames(sources)) {
    const value = read(name);
    if (value === undefined || value === '' || value === 'none') continue;
    const bearer = sources.some(
      (entry) => entry.source === 'webhook' && entry.auth === 'bearer' && entry.secret === name,
    );
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
