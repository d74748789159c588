import { DEVELOPMENT_MASKING_SECRET } from '@diagnosis/core';

/**
 * The masking secret a function derives each run's keys from: the linked `MaskingKey`; the public development key
 * only against a DynamoDB endpoint of its own (DynamoDB Local: a local run, a test, `diagnosis serve`); otherwise none
 * (null). NOTE: a deployed function never falls back to the public key: with it, every pseudonym would be a keyed hash
 * anyone can recompute (a phone number's pseudonym found by hashing all phone numbers) and every sealed map would open
 * for anyone who reads the table. Each function then refuses what needs the secret: Diagnose fails its cold start
 * (`INVALID_SETTINGS`, naming `MASKING_SECRET`), the reveal route and the feedback route answer 503
 * `MASKING_UNAVAILABLE`, the delivery sends masked (`PSEUDONYM_MAP_UNREADABLE`), a trigger fails the event.
 */
export function resolveMaskingSecret(settings: {
  MASKING_SECRET?: string | undefined;
  DYNAMODB_ENDPOINT?: string | undefined;
}): string | null {
  if (settings.MASKING_SECRET !== undefined) return settings.MASKING_SECRET;
  return settings.DYNAMODB_ENDPOINT === undefined ? null : DEVELOPMENT_MASKING_SECRET;
}
