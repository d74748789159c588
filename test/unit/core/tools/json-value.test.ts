import { describe, expect, it } from 'vitest';
import { toJsonValue } from '../../../../packages/core/src/tools/json-value.ts';

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));

describe('toJsonValue', () => {
  it('gives what the JSON round trip gives, for plain data and for everything JSON converts', () => {
    const values: unknown[] = [
      { tool_call_id: 'c1', evidence_status: 'OK', data: { rows: [['a', 1, null, true]], skipped: undefined } },
      [1, 'x', { nested: [{ deep: 'y' }] }],
      'text',
      0,
      -0,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      null,
      { at: new Date(Date.UTC(2026, 11, 1)), n: Number.NaN, z: -0 },
      [undefined, () => 1],
      { custom: { toJSON: () => 'converted' } },
      JSON.parse('{"__proto__": {"polluted": true}, "kept": 1}'),
      { [Symbol('hidden')]: 1, shown: 2 },
      Object.create(null, { plain: { value: 1, enumerable: true } }),
    ];
    for (const value of values) expect(toJsonValue(value)).toStrictEqual(roundTrip(value));
  });

  it('shares nothing with the value it copies', () => {
    const value = { data: { lines: [{ message: 'm' }] } };
    const copy = toJsonValue(value) as typeof value;
    expect(copy).toEqual(value);
    expect(copy.data).not.toBe(value.data);
    expect(copy.data.lines[0]).not.toBe(value.data.lines[0]);
  });

  it('throws as the round trip does for undefined', () => {
    expect(() => toJsonValue(undefined)).toThrow(SyntaxError);
  });
});
