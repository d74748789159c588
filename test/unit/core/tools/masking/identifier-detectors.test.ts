import { describe, expect, it } from 'vitest';
import {
  findIdentifiers,
  type IdentifierMatch,
  withoutOverlaps,
} from '../../../../../packages/core/src/tools/masking/identifier-detectors.ts';

// Exact spans of the built-in detectors (issue 33: each case kills a mutant of a pattern that would leave part of a
// value visible or miss it whole). Every value is synthetic: a documentation account id, a Luhn-valid test card.

/** What `text` yields: each match as its kind and the exact text it covers, in order. */
const spans = (text: string) => findIdentifiers(text).map((match) => [match.kind, text.slice(match.start, match.end)]);

describe('findIdentifiers', () => {
  // A resident id as people write it, its region, birth date and sequence apart (6-8-4): synthetic, with a
  // valid check character.
  it.each([
    ['spaces', '110105 19491231 002X'],
    ['hyphens', '110105-19491231-002X'],
    ['one space', '110105 19491231002X'],
    ['none', '11010519491231002X'],
  ])('takes a resident id written with %s between its parts whole', (_, id) => {
    expect(spans(`身份证 ${id} 已登记`)).toEqual([['cn_id', id]]);
  });

  it('takes no resident id whose check character is wrong, with or without spaces', () => {
    expect(spans('身份证 110105 19491231 0021 已登记').filter(([kind]) => kind === 'cn_id')).toEqual([]);
    expect(spans('身份证 11010519491231 0021').filter(([kind]) => kind === 'cn_id')).toEqual([]);
  });

  it('takes no resident id across other separators or two spaces', () => {
    for (const id of ['110105.19491231.002X', '110105  19491231 002X', '110105 1949 1231 002X']) {
      expect(
        spans(`身份证 ${id} 已登记`).filter(([kind]) => kind === 'cn_id'),
        id,
      ).toEqual([]);
    }
  });
  it('takes an e-mail address with a sub-domain whole', () => {
    expect(spans('mail zhang@mail.example.com now')).toEqual([['email', 'zhang@mail.example.com']]);
  });

  it('finds the account and the user of an ARN in another partition', () => {
    expect(spans('arn:aws-cn:iam::123456789012:role/x')).toEqual([['aws_account', '123456789012']]);
    expect(spans('arn:aws-cn:iam::123456789012:user/alice')).toEqual([
      ['aws_account', '123456789012'],
      ['iam_user', 'alice'],
    ]);
  });

  it('finds the session name of an assumed role whose role name is longer than one character', () => {
    expect(spans('arn:aws:sts::123456789012:assumed-role/DevRole/alice')).toEqual([
      ['aws_account', '123456789012'],
      ['iam_user', 'alice'],
    ]);
  });

  it.each([['awsAccountId: 123456789012'], ['account = 123456789012'], ['owner=123456789012']])(
    'finds the account id keyed as in %s',
    (line) => {
      expect(spans(line)).toEqual([['aws_account', '123456789012']]);
    },
  );

  it.each([['6222021234567890128'], ['6222 0212 3456 7890 128'], ['6222-0212-3456-7890-128']])(
    'takes the 19-digit card number %s whole',
    (card) => {
      expect(spans(`card ${card} paid`)).toEqual([['bank_card', card]]);
    },
  );

  it('takes a mobile number with the country code 86 written without a plus whole', () => {
    expect(spans('call 8613812345678 now')).toEqual([['phone', '8613812345678']]);
  });

  it('takes an IPv6 address at the start of a text, and one followed by a space, whole', () => {
    expect(spans('2001:db8::1 down')).toEqual([['ipv6', '2001:db8::1']]);
    expect(spans('x 2001:db8:85a3:0:0:8a2e:370:7334 y')).toEqual([['ipv6', '2001:db8:85a3:0:0:8a2e:370:7334']]);
  });

  it('takes an IPv4-mapped IPv6 address whole where no IPv4 address can be read in it', () => {
    // `10.20.30.40.5` is no IPv4 address (five parts), so only the IPv6 detector's dotted tail covers it.
    expect(spans('peer ::ffff:10.20.30.40.5 closed')).toEqual([['ipv6', '::ffff:10.20.30.40']]);
  });

  it('does not take colon-separated numbers without two adjacent hex digits for an IPv6 address', () => {
    expect(spans('at 1::2 and ::1')).toEqual([]);
  });

  it('keeps the first detector of two overlapping matches, and returns matches in text order', () => {
    expect(spans('from 13812345678@example.com')).toEqual([['email', '13812345678@example.com']]);
    expect(spans('13812345678 a@b.cn')).toEqual([
      ['phone', '13812345678'],
      ['email', 'a@b.cn'],
    ]);
  });
});

describe('withoutOverlaps', () => {
  it('keeps two matches that touch without overlapping, sorted by position', () => {
    const later: IdentifierMatch = { start: 3, end: 5, kind: 'b' };
    const earlier: IdentifierMatch = { start: 0, end: 3, kind: 'a' };
    expect(withoutOverlaps([later, earlier], 5)).toEqual([earlier, later]);
  });

  it('drops a match that shares one character with a kept one', () => {
    const kept: IdentifierMatch = { start: 2, end: 5, kind: 'b' };
    expect(withoutOverlaps([kept, { start: 0, end: 3, kind: 'a' }], 5)).toEqual([kept]);
  });
});
