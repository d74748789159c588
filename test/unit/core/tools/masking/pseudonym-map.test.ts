import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMaskingSession } from '../../../../../packages/core/src/tools/masking/masking-session.ts';
import {
  deriveRunMaskingKeys,
  openMap,
  sealMap,
} from '../../../../../packages/core/src/tools/masking/pseudonym-keys.ts';
import {
  openPseudonymBatches,
  type PseudonymBatchEvent,
  sealNewPseudonyms,
} from '../../../../../packages/core/src/tools/masking/pseudonym-map.ts';

const SECRET = 'unit-test-masking-secret-of-at-least-32-characters';
const RUN = 'run-sealed-a';

function sealedBatches(runId = RUN, values = ['13912345678', 'bob@example.com']): PseudonymBatchEvent[] {
  const session = createMaskingSession({ mode: 'identifiers', secret: SECRET }, runId);
  let sequence = 0;
  const batches: PseudonymBatchEvent[] = [];
  for (const value of values) {
    session.maskText(value);
    batches.push(...sealNewPseudonyms(session, { runId, sessionId: 's-1' }, () => ++sequence));
  }
  return batches;
}

/** A batch as the table holds it before run id and sequence were bound (AES-256-GCM without additional data). */
function legacyBatch(runId: string, sequence: number, text: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', deriveRunMaskingKeys(SECRET, runId).mapKey, iv);
  const ciphertext = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
  return {
    sequence,
    sealed: {
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
    },
  };
}

describe('openPseudonymBatches', () => {
  it('opens the batches a run sealed, with the run id and sequence they were sealed under', () => {
    const batches = sealedBatches();
    expect(batches.map((batch) => [batch.sequence, batch.sealed.version])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(openPseudonymBatches(SECRET, RUN, batches).map((entry) => entry.value)).toEqual([
      '13912345678',
      'bob@example.com',
    ]);
  });

  it('refuses a batch moved to another sequence, even swapped with its neighbour', () => {
    const [first, second] = sealedBatches() as [PseudonymBatchEvent, PseudonymBatchEvent];
    expect(() => openPseudonymBatches(SECRET, RUN, [{ ...first, sequence: 2 }])).toThrow();
    expect(() =>
      openPseudonymBatches(SECRET, RUN, [
        { ...first, sequence: 2 },
        { ...second, sequence: 1 },
      ]),
    ).toThrow();
  });

  it('refuses a batch of another run, another secret, or one whose seal version was removed', () => {
    const [first] = sealedBatches() as [PseudonymBatchEvent];
    expect(() => openPseudonymBatches(SECRET, 'run-sealed-b', [first])).toThrow();
    expect(() => openPseudonymBatches(`${SECRET}-other`, RUN, [first])).toThrow();
    const { version: _version, ...stripped } = first.sealed;
    expect(() => openPseudonymBatches(SECRET, RUN, [{ ...first, sealed: stripped }])).toThrow();
  });

  it('refuses a tag shorter than 16 bytes (a truncated tag would be forged by trying 2^32 values)', () => {
    const [first] = sealedBatches() as [PseudonymBatchEvent];
    const short = Buffer.from(first.sealed.tag, 'base64').subarray(0, 4).toString('base64');
    expect(() => openPseudonymBatches(SECRET, RUN, [{ ...first, sealed: { ...first.sealed, tag: short } }])).toThrow();
    const long = Buffer.concat([Buffer.from(first.sealed.tag, 'base64'), Buffer.alloc(1)]).toString('base64');
    expect(() => openPseudonymBatches(SECRET, RUN, [{ ...first, sealed: { ...first.sealed, tag: long } }])).toThrow();
  });

  it('refuses an IV that is not 12 bytes', () => {
    const [first] = sealedBatches() as [PseudonymBatchEvent];
    const iv = Buffer.alloc(16).toString('base64');
    expect(() => openPseudonymBatches(SECRET, RUN, [{ ...first, sealed: { ...first.sealed, iv } }])).toThrow();
  });

  it('opens a batch sealed before run id and sequence were bound (no seal version), its 16-byte tag pinned', () => {
    const entries = [{ token: '<phone:abcde>', kind: 'phone', value: '13912345678' }];
    const legacy = legacyBatch(RUN, 1, JSON.stringify(entries));
    expect(openPseudonymBatches(SECRET, RUN, [legacy])).toEqual(entries);
    const short = Buffer.from(legacy.sealed.tag, 'base64').subarray(0, 12).toString('base64');
    expect(() =>
      openPseudonymBatches(SECRET, RUN, [{ ...legacy, sealed: { ...legacy.sealed, tag: short } }]),
    ).toThrow();
  });
});

describe('sealMap', () => {
  it('seals with a fresh 12-byte IV and a 16-byte tag, and openMap needs the same binding', () => {
    const key = deriveRunMaskingKeys(SECRET, RUN).mapKey;
    const binding = { runId: RUN, sequence: 3 };
    const one = sealMap(key, 'text', binding);
    const two = sealMap(key, 'text', binding);
    expect(Buffer.from(one.iv, 'base64')).toHaveLength(12);
    expect(Buffer.from(one.tag, 'base64')).toHaveLength(16);
    expect(one.iv).not.toBe(two.iv);
    expect(openMap(key, one, binding)).toBe('text');
    expect(() => openMap(key, one, { runId: RUN, sequence: 4 })).toThrow();
    expect(() => openMap(key, one, { runId: `${RUN}x`, sequence: 3 })).toThrow();
  });
});
