/**
 * `wellFormed` (every item read and every audit item written passes it): a value with nothing to mend is returned as
 * it is; anything else is mended exactly as the copying form did (lone surrogates → U+FFFD, objects made plain).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { wellFormed } from '../../../../../packages/core/src/store/items/item.ts';
import { propertyRuns } from '../../../../support/property-runs.ts';

/** The form before 2026-12-03: a copy of every array and object, every string made well-formed. */
function copied(value: unknown): unknown {
  if (typeof value === 'string') return value.isWellFormed() ? value : value.toWellFormed();
  if (Array.isArray(value)) return value.map(copied);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [copied(key), copied(entry)]));
  }
  return value;
}

/** Strings of any UTF-16 code units: lone surrogates included. */
const units = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) });

describe('wellFormed', () => {
  it('returns a value with nothing to mend as it is, not a copy', () => {
    const item = { pk: 'RUN#r1', list: [1, 'два', { 键: '值 😀' }], nested: { empty: {}, none: null } };
    expect(wellFormed(item)).toBe(item);
  });

  it('mends a lone surrogate in a value or a key, however deep, and leaves the input as it was', () => {
    const item = { a: [{ b: 'x\ud800y' }], 'k\udfff': 1, kept: 'ok' };
    const before = structuredClone(item);
    expect(wellFormed(item)).toEqual({ a: [{ b: 'x\ufffdy' }], 'k\ufffd': 1, kept: 'ok' });
    expect(item).toEqual(before);
  });

  it('makes plain what is not a plain object or array, as before', () => {
    const sparse: number[] = [];
    sparse[0] = 1;
    sparse[2] = 3;
    const extra = Object.assign([1, 2], { extra: true });
    const hidden = Object.defineProperty({ shown: 1 }, 'hidden', { value: 2, enumerable: false });
    for (const value of [new Set(['a']), new Date(0), new Map([['a', 1]]), sparse, extra, hidden, { [Symbol('s')]: 1 }])
      expect(wellFormed(value)).toEqual(copied(value));
    expect(wellFormed({ inner: new Set(['a']) })).toEqual({ inner: {} });
  });

  it('gives what the copying form gave for any value (property)', () => {
    const values = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        units,
        fc.integer(),
        fc.constantFrom(null, undefined, true, 0.5),
        fc.array(tie('value'), { maxLength: 4 }),
        fc.sparseArray(tie('value'), { maxLength: 4 }),
        fc.dictionary(units, tie('value'), { maxKeys: 4 }),
        fc.dictionary(units, tie('value'), { maxKeys: 4, noNullPrototype: false }),
        fc.constant(new Set(['a'])),
      ),
    })).value;
    fc.assert(
      fc.property(values, (value) => {
        expect(wellFormed(value)).toStrictEqual(copied(value));
      }),
      propertyRuns(2_000, 300, 20261203),
    );
  });
});
