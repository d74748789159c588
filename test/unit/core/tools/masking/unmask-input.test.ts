/**
 * The way back at the tool boundary, on its own: which pseudonyms a tool gets the real value of, when a number field
 * gets a number, and how deep a tool's arguments are walked. A wrong answer here hands a tool another value than the
 * one the model meant, or a real value the model never saw (issue 33).
 */
import { describe, expect, it } from 'vitest';
import { unmaskInput } from '../../../../../packages/core/src/tools/masking/unmask-input.ts';

describe('unmaskInput', () => {
  const entry = (token: string, value: string, kind = 'phone') => ({ token, kind, value });
  const byToken = new Map(
    [
      entry('<phone:aaaaa>', '13812345678'),
      entry('<phone:bbbbb>', '13912345678'),
      entry('<num:ccccc>', '-42', 'num'),
      entry('<num:ddddd>', '123456789012345', 'num'),
      entry('<num:eeeee>', '1234567890123456', 'num'),
      entry('<num:fffff>', '12a', 'num'),
      entry('<num:ggggg>', 'a12', 'num'),
      entry('<num:hhhhh>', '1.5', 'num'),
      entry('<num:iiiii>', '--1', 'num'),
      entry('<num:jjjjj>', '7', 'num'),
      entry('<num:kkkkk>', '-', 'num'),
    ].map((item) => [item.token, item]),
  );
  const shown = new Set([...byToken.keys()].filter((token) => token !== '<phone:bbbbb>'));
  const sources = { byToken, shown, recorded: new Set(['<phone:rrrrr>']), maxDepth: 2 };
  const unmask = (value: unknown, numberFields?: ReadonlySet<string>) => unmaskInput(value, sources, numberFields);

  it('restores every shown pseudonym inside a string and keeps the rest of the text', () => {
    expect(unmask('call <phone:aaaaa> or <num:jjjjj> now')).toEqual({ ok: true, value: 'call 13812345678 or 7 now' });
    expect(unmask({ q: 'no pseudonym here', n: 3, b: false, nothing: null })).toEqual({
      ok: true,
      value: { q: 'no pseudonym here', n: 3, b: false, nothing: null },
    });
    expect(unmask(['<phone:aaaaa>', 5, true])).toEqual({ ok: true, value: ['13812345678', 5, true] });
    expect(unmask(12)).toEqual({ ok: true, value: 12 });
    expect(unmask(null)).toEqual({ ok: true, value: null });
  });

  it('refuses the whole call for a pseudonym the run holds but never showed, even whole in a number field', () => {
    expect(unmask({ q: '<phone:bbbbb>' })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    expect(unmask({ id: '<phone:bbbbb>' }, new Set(['id']))).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    expect(unmask({ id: '<phone:zzzzz>' }, new Set(['id']))).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    expect(unmask({ a: '<phone:aaaaa>', b: 'x <phone:zzzzz>' })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    // A replay's recorded pseudonym passes as it is, next to a restored one.
    expect(unmask({ a: '<phone:rrrrr> <phone:aaaaa>' })).toEqual({
      ok: true,
      value: { a: '<phone:rrrrr> 13812345678' },
    });
  });

  it('gives a number only for a whole number of at most 15 digits, whole in a field that takes one', () => {
    const fields = new Set(['id']);
    const asId = (token: string) => {
      const result = unmask({ id: token }, fields);
      return result.ok ? (result.value as { id: unknown }).id : result.code;
    };
    expect(asId('<num:ccccc>')).toBe(-42);
    expect(asId('<num:jjjjj>')).toBe(7);
    expect(asId('<num:ddddd>')).toBe(123456789012345);
    expect(asId('<phone:aaaaa>')).toBe(13812345678);
    for (const token of ['<num:eeeee>', '<num:fffff>', '<num:ggggg>', '<num:hhhhh>', '<num:iiiii>', '<num:kkkkk>']) {
      expect(asId(token)).toBe(byToken.get(token)?.value);
    }
    // Not whole (text around it), not a number field, or in a list (no field name): the text value.
    expect(asId(' <num:jjjjj>')).toBe(' 7');
    expect(unmask({ other: '<num:jjjjj>' }, fields)).toEqual({ ok: true, value: { other: '7' } });
    expect(unmask({ id: ['<num:jjjjj>'] }, fields)).toEqual({ ok: true, value: { id: ['7'] } });
    expect(unmask({ id: '<num:jjjjj>' })).toEqual({ ok: true, value: { id: '7' } });
  });

  it('walks objects and lists down to maxDepth and returns deeper containers as they are', () => {
    // maxDepth 2: the containers at depth 0, 1 and 2 are walked; a string directly inside one is restored.
    expect(unmask([[['<phone:aaaaa>']]])).toEqual({ ok: true, value: [[['13812345678']]] });
    expect(unmask({ a: { b: { c: '<phone:aaaaa>' } } })).toEqual({
      ok: true,
      value: { a: { b: { c: '13812345678' } } },
    });
    expect(unmask([[[['<phone:aaaaa>']]]])).toEqual({ ok: true, value: [[[['<phone:aaaaa>']]]] });
    expect(unmask({ a: { b: { c: { d: '<phone:aaaaa>' } } } })).toEqual({
      ok: true,
      value: { a: { b: { c: { d: '<phone:aaaaa>' } } } },
    });
    expect(unmask({ a: [{ c: ['<phone:aaaaa>'] }] })).toEqual({ ok: true, value: { a: [{ c: ['<phone:aaaaa>'] }] } });
  });
});
