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

const SALT = Buffer.from('diagnosis-agent/masking/v1');

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
    extracted = { secret, prk: createSecretKey(createHmac('sha256', SALT).update(secret).digest()) };
  }
  const prk = extracted.prk;
  const derive = (purpose: string) =>
    createHmac('sha256', prk).update(`${purpose}:${runId}`).update(FIRST_BLOCK).digest();
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

/** A batch of a run's map, sealed: `version` 2 binds the run id and the batch's sequence (absent: sealed before). */
export interface SealedMap {
  iv: string;
  tag: string;
  ciphertext: string;
  version?: 2;
}

/** Where a sealed batch belongs: bound into its tag as additional authenticated data. */
export interface MapBinding {
  runId: string;
  sequence: number;
}

/** GCM's IV and tag sizes, pinned: a shorter tag is refused, never checked on fewer bytes. */
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEAL_VERSION = 2;

/**
 * The additional authenticated data of a batch: the run and its place in the run's map. NOTE: the map key is the
 * run's own already (a batch of another run does not open); the sequence binds each batch to its place, so a batch
 * copied, moved or swapped to another sequence of the same run does not open either.
 */
function additionalData(binding: MapBinding): Buffer {
  return Buffer.from(`diagnosis-agent/pseudonym-map/v${SEAL_VERSION}\u0000${binding.runId}\u0000${binding.sequence}`);
}

/** AES-256-GCM of a JSON text, bound to its run and sequence; the IV is random per item and stored beside it. */
export function sealMap(key: Buffer, text: string, binding: MapBinding): SealedMap {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(binding));
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return {
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
    version: SEAL_VERSION,
  };
}

/**
 * The JSON text sealed by {@link sealMap}; throws when the key or the binding is not the one it was sealed with, the
 * IV is not 12 bytes or the tag not 16, or it was altered. NOTE: a batch without `version` was sealed before run id
 * and sequence were bound (docs/masking.md, "Where the real values are"): it is opened without additional data, its
 * 16-byte tag still pinned, so maps stored before the change reveal until their retention ends. Removing the version
 * of a bound batch does not downgrade it: its tag covers the additional data, and it no longer opens.
 */
export function openMap(key: Buffer, sealed: SealedMap, binding: MapBinding): string {
  const iv = Buffer.from(sealed.iv, 'base64');
  const tag = Buffer.from(sealed.tag, 'base64');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new TypeError('the sealed batch is malformed');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (sealed.version === SEAL_VERSION) decipher.setAAD(additionalData(binding));
  else if (sealed.version !== undefined) throw new TypeError('the sealed batch has an unknown version');
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString('utf8');
}
