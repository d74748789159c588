import { createCipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  DEVELOPMENT_MASKING_SECRET,
  deriveRunMaskingKeys,
  openMap,
  pseudonymCode,
  type SealedMap,
  sealMap,
} from '../../../../../packages/core/src/tools/masking/pseudonym-keys.ts';

const SALT = Buffer.from('diagnosis-agent/masking/v1', 'utf8');
const hkdf = (secret: string, info: string) =>
  Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, info, 32));

/** What a call threw (the tests compare class and exact message). */
function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('deriveRunMaskingKeys', () => {
  it('gives the bytes of HKDF-SHA256 (node:crypto hkdfSync) for each purpose, run and secret', () => {
    const other = 'another-deployment-secret-of-at-least-32-characters-密钥';
    for (const secret of [DEVELOPMENT_MASKING_SECRET, other, DEVELOPMENT_MASKING_SECRET]) {
      for (const runId of ['run-1', '01JDXW7Y5B3M9C2K8Q4R6T0V1Z', 'run-2']) {
        const keys = deriveRunMaskingKeys(secret, runId);
        expect(keys.pseudonymKey.equals(hkdf(secret, `pseudonym:${runId}`))).toBe(true);
        expect(keys.mapKey.equals(hkdf(secret, `pseudonym-map:${runId}`))).toBe(true);
      }
    }
  });

  it('accepts a secret of exactly 32 characters', () => {
    const secret = 's'.repeat(32);
    expect(deriveRunMaskingKeys(secret, 'run-1').mapKey.equals(hkdf(secret, 'pseudonym-map:run-1'))).toBe(true);
  });

  it.each([
    ['31 characters', 's'.repeat(31)],
    ['none', ''],
  ])('refuses a secret of %s, saying only what is wrong', (_label, secret) => {
    expect(thrown(() => deriveRunMaskingKeys(secret, 'run-1'))).toStrictEqual(
      new TypeError('the masking secret must be at least 32 characters'),
    );
  });
});

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** RFC 4648 base32 (lower case, no padding) of HMAC-SHA256(key, kind ‖ 0x00 ‖ value), read bit by bit. */
function codeOracle(key: Buffer, kind: string, value: string, length: number): string {
  const digest = createHmac('sha256', key)
    .update(Buffer.from(`${kind}\u0000${value}`, 'utf8'))
    .digest();
  const bits = [...digest].map((byte) => byte.toString(2).padStart(8, '0')).join('');
  let code = '';
  for (let start = 0; start + 5 <= bits.length && code.length < length; start += 5) {
    code += BASE32[Number.parseInt(bits.slice(start, start + 5), 2)];
  }
  return code;
}

describe('pseudonymCode', () => {
  // NOTE: a fixed key, not one derived here: code run while vitest collects the tests (a describe body) is covered by
  // no test, so Stryker would count the derivation's mutants as static and rerun every mutation test for each.
  const key = Buffer.alloc(32, 11);

  it('is the first `length` base32 characters of the keyed HMAC of kind and value, at every length', () => {
    for (const [kind, value] of [
      ['phone', '13912345678'],
      ['email', 'bob@example.com'],
      ['cn_id', '11010519491231002X'],
    ] as const) {
      for (let length = 1; length <= 51; length += 1) {
        expect(pseudonymCode(key, kind, value, length)).toBe(codeOracle(key, kind, value, length));
      }
    }
  });

  it('stops at the 51 whole characters of the 256-bit HMAC', () => {
    expect(pseudonymCode(key, 'phone', '13912345678', 60)).toBe(codeOracle(key, 'phone', '13912345678', 51));
    expect(pseudonymCode(key, 'phone', '13912345678', 60)).toHaveLength(51);
  });

  it('keeps kind and value apart: moving a character across them changes the code', () => {
    expect(pseudonymCode(key, 'ab', 'c', 13)).not.toBe(pseudonymCode(key, 'a', 'bc', 13));
  });

  it('gives the code recorded for a fixed key (a stored run’s pseudonyms stay the same after an upgrade)', () => {
    // Recorded with Python: base64.b32encode(hmac.new(bytes([7]) * 32, b'phone\x0013912345678', sha256).digest()).
    expect(pseudonymCode(Buffer.alloc(32, 7), 'phone', '13912345678', 13)).toBe('w37ysint7jjll');
  });
});

describe('sealMap and openMap', () => {
  const key = Buffer.alloc(32, 13);
  const binding = { runId: 'run-seal', sequence: 7 };
  const TEXT = JSON.stringify([{ token: '<phone:abcde>', kind: 'phone', value: '13912345678 张三' }]);

  /** A batch sealed as the stored format says: AES-256-GCM, AAD `diagnosis-agent/pseudonym-map/v2 NUL run NUL seq`. */
  function sealedByTheFormat(text: string, additionalData: string | null, version?: number): SealedMap {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
    if (additionalData !== null) cipher.setAAD(Buffer.from(additionalData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return {
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      ...(version === undefined ? {} : { version }),
    } as SealedMap;
  }

  it('opens what it sealed, text of any script included', () => {
    const sealed = sealMap(key, TEXT, binding);
    expect(sealed.version).toBe(2);
    expect(openMap(key, sealed, binding)).toBe(TEXT);
  });

  it('opens a batch sealed by the stored format, bound to its run and sequence', () => {
    const sealed = sealedByTheFormat(TEXT, 'diagnosis-agent/pseudonym-map/v2\u0000run-seal\u00007', 2);
    expect(openMap(key, sealed, binding)).toBe(TEXT);
  });

  it('opens a batch sealed before the binding (no version) without additional data', () => {
    expect(openMap(key, sealedByTheFormat(TEXT, null), binding)).toBe(TEXT);
  });

  it('refuses a batch of an unknown version before trying it', () => {
    const sealed = sealedByTheFormat(TEXT, null, 3);
    expect(thrown(() => openMap(key, sealed, binding))).toStrictEqual(
      new TypeError('the sealed batch has an unknown version'),
    );
  });

  it.each([
    ['an 11-byte IV', { iv: randomBytes(11).toString('base64') }],
    ['a 16-byte IV', { iv: randomBytes(16).toString('base64') }],
    ['a 12-byte tag', { tag: randomBytes(12).toString('base64') }],
    ['an empty tag', { tag: '' }],
  ])('refuses a batch with %s as malformed, before deciphering', (_label, change) => {
    const sealed = { ...sealMap(key, TEXT, binding), ...change };
    expect(thrown(() => openMap(key, sealed, binding))).toStrictEqual(new TypeError('the sealed batch is malformed'));
  });
});
