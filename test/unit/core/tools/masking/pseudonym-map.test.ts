import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMaskingSession } from '../../../../../packages/core/src/tools/masking/masking-session.ts';
import {
  deriveRunMaskingKeys,
  openMap,
  sealMap,
} from '../../../../../packages/core/src/tools/masking/pseudonym-keys.ts';
import {
  chunkNewPseudonyms,
  openPseudonymBatches,
  PSEUDONYM_BATCH_ENTRIES,
  type PseudonymBatchEvent,
  sealNewPseudonyms,
  sealPseudonymBatch,
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

describe('sealNewPseudonyms', () => {
  const emails = (count: number, from = 0) =>
    Array.from({ length: count }, (_, index) => `user${from + index}@example.com`).join(' ');

  it('seals what is new in batches of at most 400 entries, each with the next sequence; nothing when none', () => {
    const session = createMaskingSession({ mode: 'identifiers', secret: SECRET }, RUN);
    let sequence = 4;
    const seal = () => sealNewPseudonyms(session, { runId: RUN, sessionId: 's-9' }, () => ++sequence);
    expect(seal()).toEqual([]);
    session.maskText(emails(PSEUDONYM_BATCH_ENTRIES * 2 + 1));
    const batches = seal();
    expect(batches.map(({ sealed: _sealed, ...event }) => event)).toEqual([
      { runId: RUN, sessionId: 's-9', sequence: 5, count: 400 },
      { runId: RUN, sessionId: 's-9', sequence: 6, count: 400 },
      { runId: RUN, sessionId: 's-9', sequence: 7, count: 1 },
    ]);
    const opened = openPseudonymBatches(SECRET, RUN, batches);
    expect(opened.map((entry) => entry.value)).toEqual(emails(801).split(' '));
    expect(opened.every((entry) => entry.kind === 'email' && /^<email:[a-z2-7]{5,13}>$/.test(entry.token))).toBe(true);
    expect(seal()).toEqual([]);
    expect(sequence).toBe(7);
  });

  it('cuts exactly 400 new entries into one chunk, and 399 into one', () => {
    const session = createMaskingSession({ mode: 'identifiers', secret: SECRET }, RUN);
    session.maskText(emails(PSEUDONYM_BATCH_ENTRIES));
    expect(chunkNewPseudonyms(session).map((chunk) => chunk.length)).toEqual([400]);
    session.maskText(emails(399, 1_000));
    expect(chunkNewPseudonyms(session).map((chunk) => chunk.length)).toEqual([399]);
    expect(chunkNewPseudonyms(session)).toEqual([]);
  });
});

describe('openPseudonymBatches: what a batch may hold', () => {
  const key = () => deriveRunMaskingKeys(SECRET, RUN).mapKey;
  const batchOf = (entries: unknown, sequence = 1) => ({
    sequence,
    sealed: sealMap(key(), JSON.stringify(entries), { runId: RUN, sequence }),
  });
  const entry = { token: '<phone:abcde>', kind: 'phone', value: '13912345678' };

  it('opens each batch under its own sequence, in order', () => {
    const second = { token: '<email:abcde>', kind: 'email', value: 'a@b.cn' };
    const one = sealPseudonymBatch({ mapKey: key() }, { runId: RUN, sessionId: 's' }, 1, [entry]);
    const two = sealPseudonymBatch({ mapKey: key() }, { runId: RUN, sessionId: 's' }, 2, [second]);
    expect(one).toMatchObject({ runId: RUN, sessionId: 's', sequence: 1, count: 1 });
    expect(openPseudonymBatches(SECRET, RUN, [one, two])).toEqual([entry, second]);
    expect(openPseudonymBatches(SECRET, RUN, [batchOf([entry, second], 3)])).toEqual([entry, second]);
  });

  it.each([
    ['an entry with another field', [{ ...entry, tenant: 'other' }]],
    ['an entry without its value', [{ token: entry.token, kind: entry.kind }]],
    ['an entry without its token', [{ kind: entry.kind, value: entry.value }]],
    ['an entry without its kind', [{ token: entry.token, value: entry.value }]],
    ['a value that is not text', [{ ...entry, value: 13912345678 }]],
    ['a token that is not text', [{ ...entry, token: null }]],
    ['a kind that is not text', [{ ...entry, kind: 1 }]],
    ['an object instead of a list', entry],
  ])('refuses a sealed batch holding %s', (_name, entries) => {
    expect(() => openPseudonymBatches(SECRET, RUN, [batchOf(entries)])).toThrow();
  });
});
