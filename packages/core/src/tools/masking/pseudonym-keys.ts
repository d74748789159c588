import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
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
  readonly pseudonymKey: Buffer;
  /** Encrypts the run's pseudonym map at rest (AES-256-GCM), on top of the table's own encryption. */
  readonly mapKey: Buffer;
}

/**
 * The key of local runs and tests when no masking secret is configured. It is public (it is in the source): a
 * deployment always links its own secret (`sst secret set MaskingKey …`).
 */
export const DEVELOPMENT_MASKING_SECRET = 'diagnosis-agent-local-development-masking-secret-not-for-production';

const SALT = Buffer.from('diagnosis-agent/masking/v1', 'utf8');

/**
 * HKDF's extract step of the last secret seen, as a KeyObject: it depends on the secret alone (a deployment has one),
 * so it is computed once per process.
 */
let extracted: { secret: string; prk: KeyObject } | undefined;

/** One byte, the counter of HKDF's only expand block (32 bytes of output are one SHA-256 block). */
const FIRST_BLOCK = Buffer.from([1]);

/**
 * Every run's keys: HKDF-SHA256 (RFC 5869) of the secret, salt {@link SALT} and info `<purpose>:<runId>`, 32 bytes.
 * NOTE: the extract step (PRK = HMAC(salt, secret)) is the same for every run and is made once per process; a run
 * pays only the expand step, one HMAC-SHA256(PRK, info ‖ 0x01) per key. The bytes are those of `hkdfSync` (the unit
 * test compares them); `hkdfSync` itself redoes the extract and sets up a KDF context on every call (18–34 µs of CPU
 * a run for the two keys, against 8 µs this way, measured 2026-12-01).
 */
export function deriveRunMaskingKeys(secret: string, runId: string): RunMaskingKeys {
  if (secret.length < 32) throw new TypeError('the masking secret must be at least 32 characters');
  if (extracted?.secret !== secret) {
    extracted = { secret, prk: createSecretKey(createHmac('sha256', SALT).update(secret, 'utf8').digest()) };
  }
  const prk = extracted.prk;
  const derive = (purpose: string) =>
    createHmac('sha256', prk).update(`${purpose}:${runId}`, 'utf8').update(FIRST_BLOCK).digest();
  // NOTE: each key is derived when first read: a run that never makes a pseudonym, or never stores its map, derives
  // no key it does not use. The secret is checked above, at once, whatever is read later.
  let pseudonymKey: Buffer | undefined;
  let mapKey: Buffer | undefined;
  return {
    get pseudonymKey() {
      pseudonymKey ??= derive('pseudonym');
      return pseudonymKey;
    },
    get mapKey() {
      mapKey ??= derive('pseudonym-map');
      return mapKey;
    },
  };
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
