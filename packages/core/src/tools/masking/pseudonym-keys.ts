import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';

/**
 * The key material of masking. NOTE: every run has keys of its own, derived with HKDF-SHA256 from the deployment's
 * masking secret (an SST secret in AWS) and the runId: a pseudonym is a keyed HMAC, never a bare hash, so it cannot
 * be reversed by hashing guesses, and the same value has unrelated pseudonyms in two runs.
 */
export interface RunMaskingKeys {
  /** Keys the HMAC of every pseudonym of the run. */
  pseudonymKey: Buffer;
  /** Encrypts the run's pseudonym map at rest (AES-256-GCM), on top of the table's own encryption. */
  mapKey: Buffer;
}

/**
 * The key of local runs and tests when no masking secret is configured. It is public (it is in the source): a
 * deployment always links its own secret (`sst secret set MaskingKey …`).
 */
export const DEVELOPMENT_MASKING_SECRET = 'diagnosis-agent-local-development-masking-secret-not-for-production';

const SALT = Buffer.from('diagnosis-agent/masking/v1', 'utf8');

/** The last secret seen as a KeyObject: a deployment has one secret, so one per process. */
let secretKey: { secret: string; key: KeyObject } | undefined;

/**
 * Every run's keys: HKDF-SHA256 of the secret, salt {@link SALT} and info `<purpose>:<runId>`, 32 bytes. NOTE: the
 * secret goes to `hkdfSync` as a KeyObject made once per process: handed a Buffer, `hkdfSync` makes a KeyObject of
 * it on every call, more than half of its time (58.5 → 25.9 µs of CPU a run, measured); the bytes are the same.
 */
export function deriveRunMaskingKeys(secret: string, runId: string): RunMaskingKeys {
  if (secret.length < 32) throw new TypeError('the masking secret must be at least 32 characters');
  if (secretKey?.secret !== secret) secretKey = { secret, key: createSecretKey(Buffer.from(secret, 'utf8')) };
  const key = secretKey.key;
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', key, SALT, `${purpose}:${runId}`, 32));
  return { pseudonymKey: derive('pseudonym'), mapKey: derive('pseudonym-map') };
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** The first `length` base32 characters of HMAC-SHA256(key, kind NUL value). */
export function pseudonymCode(key: Buffer, kind: string, value: string, length: number): string {
  const digest = createHmac('sha256', key).update(kind).update('\u0000').update(value).digest();
  let code = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of digest) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && code.length < length) {
      code += BASE32[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
    if (code.length >= length) break;
  }
  return code;
}

/** AES-256-GCM of a JSON text; the IV is random per item and stored beside it. */
export function sealMap(key: Buffer, text: string): { iv: string; tag: string; ciphertext: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/** The JSON text sealed by {@link sealMap}; throws when the key is not the one it was sealed with or it was altered. */
export function openMap(key: Buffer, sealed: { iv: string; tag: string; ciphertext: string }): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}
