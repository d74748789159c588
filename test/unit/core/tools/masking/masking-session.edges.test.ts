import { describe, expect, it } from 'vitest';
import {
  createMaskingSession,
  MASKING_LIMITS,
  type MaskingConfig,
} from '../../../../../packages/core/src/tools/masking/masking-session.ts';

// The masking edges a mutant of which leaks a customer value to the model (issue 33): the keyed AWS account detector
// and its JSON keys, numeric account values, the 16 KiB cut, resident-id date ranges, phone and card separators, the
// IPv4 last octet, the depth limits, the escape-decoding pass limit, pseudonym collisions and conflicting restored
// entries. Every value here is synthetic: a card number that passes Luhn, resident ids with computed check digits.

const SECRET = 'unit-test-masking-secret-of-at-least-32-characters';
const config: MaskingConfig = { mode: 'identifiers', secret: SECRET };
const session = (runId = 'run-a') => createMaskingSession(config, runId);
const ACCOUNT = '123456789012';
const CARD = '4111111111111111';

/** An 18-character resident id with the given 6-digit region, 8-digit birth date and 3-digit sequence, checked. */
function residentId(birth: string, region = '110105', sequence = '002'): string {
  const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  const body = `${region}${birth}${sequence}`;
  const sum = [...body].reduce((total, digit, index) => total + Number(digit) * (weights[index] ?? 0), 0);
  return `${body}${'10X98765432'[sum % 11]}`;
}

describe('maskText: the keyed AWS account detector', () => {
  it.each([
    [`accountId: ${ACCOUNT}`],
    [`"account_id": "${ACCOUNT}"`],
    [`aws_account_id=${ACCOUNT}`],
    [`OwnerId = '${ACCOUNT}'`],
    [`owner-id:${ACCOUNT} state=running`],
  ])('pseudonymises the account id in %s', (line) => {
    const masked = session().maskText(line);
    expect(masked).not.toContain(ACCOUNT);
    expect(masked).toMatch(/<aws_account:[a-z2-7]{5}>/);
  });

  it('leaves twelve digits alone when no account key names them', () => {
    expect(session().maskText(`orders=${ACCOUNT}`)).toBe(`orders=${ACCOUNT}`);
  });
});

describe('maskValue: account ids by key', () => {
  it.each(['accountId', 'AwsAccountId', 'aws_account', 'owner_id', 'Account'])(
    'pseudonymises a string or a number under %s',
    (key) => {
      const masking = session();
      const asText = masking.maskValue({ [key]: ACCOUNT }) as Record<string, string>;
      const asNumber = masking.maskValue({ [key]: Number(ACCOUNT) }) as Record<string, string>;
      expect(asText[key]).toMatch(/^<aws_account:[a-z2-7]{5}>$/);
      expect(asNumber[key]).toBe(asText[key]);
    },
  );

  it('keeps twelve digits under another key, and an account key with other than twelve digits', () => {
    const masking = session();
    expect(masking.maskValue({ orderId: ACCOUNT, accountId: '12345678901' })).toEqual({
      orderId: ACCOUNT,
      accountId: '12345678901',
    });
  });
});

describe('maskText: the 16 KiB cut', () => {
  it('cuts before a value that crosses the limit, so no part of it is left', () => {
    const filler = 'log '.repeat(Math.ceil(MASKING_LIMITS.textChars / 4));
    const before = filler.slice(0, MASKING_LIMITS.textChars - 8);
    const masked = session().maskText(`${before}${CARD} tail`);
    expect(masked.length).toBeLessThanOrEqual(MASKING_LIMITS.textChars);
    expect(masked).not.toMatch(/4111/);
    // `before` ends with a space: the cut is there, the card and everything after it are gone.
    expect(masked).toBe(before.slice(0, -1));
  });

  it('keeps a text of exactly 16 KiB whole and masks a value at its end', () => {
    const text = `${'x '.repeat((MASKING_LIMITS.textChars - CARD.length) / 2)}${CARD}`;
    expect(text).toHaveLength(MASKING_LIMITS.textChars);
    const masked = session().maskText(text);
    expect(masked).toMatch(/<bank_card:[a-z2-7]{5}>$/);
  });

  it('cuts before a phone number whose first group an invisible mark and a space end, leaving none of it', () => {
    const masking = session();
    const before = `${'y'.repeat(MASKING_LIMITS.textChars - 10)} tel `;
    // The bound falls on the `1` of `1234`: the text as it is has a space after `138\u200b`, the view a spaced phone number.
    expect(masking.maskText(`${before}138\u200b 1234 5678 tail`)).toBe(before.slice(0, -1));
    expect(masking.maskText(`${before}138 \u200b1234 5678 tail`)).toBe(before.slice(0, -1));
  });

  it('masks a text with no break in its first 16 KiB whole', () => {
    expect(session().maskText('a'.repeat(MASKING_LIMITS.textChars + 1))).toBe('[MASKED:oversized]');
  });
});

describe('maskText: resident ids', () => {
  it.each(['18000101', '18991231', '19491231', '19700615', '20000229', '20991130', '19851001', '19851031'])(
    'pseudonymises an id born %s',
    (birth) => {
      const id = residentId(birth);
      const masked = session().maskText(`身份证 ${id} 已登记`);
      expect(masked).toMatch(/^身份证 <cn_id:[a-z2-7]{5}> 已登记$/);
    },
  );

  it.each(['17991231', '21000101', '19491331', '19490001', '19491200', '19491232'])(
    'leaves an 18-digit number whose date %s is no birth date alone (not an id)',
    (birth) => {
      const id = residentId(birth);
      expect(session().maskText(`编号 ${id} 已登记`)).not.toContain('<cn_id:');
    },
  );
});

describe('maskText: phone and card separators', () => {
  it.each([
    ['13812345678'],
    ['138 1234 5678'],
    ['138-1234-5678'],
    ['+86 138 1234 5678'],
    ['+86-13812345678'],
    ['+44 20 7946 0958'],
  ])('pseudonymises the phone number %s whole', (phone) => {
    expect(session().maskText(`call ${phone} now`)).toMatch(/^call <phone:[a-z2-7]{5}> now$/);
  });

  it.each([['4111111111111111'], ['4111 1111 1111 1111'], ['4111-1111-1111-1111']])(
    'pseudonymises the card number %s whole',
    (card) => {
      expect(session().maskText(`card ${card} paid`)).toMatch(/^card <bank_card:[a-z2-7]{5}> paid$/);
    },
  );

  it('leaves a number with another separator or a failing checksum alone', () => {
    expect(session().maskText('card 4111_1111_1111_1111 paid')).toBe('card 4111_1111_1111_1111 paid');
    expect(session().maskText('card 4111111111111112 paid')).toBe('card 4111111111111112 paid');
  });
});

describe('maskText: IPv4 addresses', () => {
  it.each(['10.0.0.0', '10.0.0.9', '10.0.0.99', '10.0.0.199', '10.0.0.249', '10.0.0.255', '255.255.255.255'])(
    'pseudonymises %s',
    (address) => {
      expect(session().maskText(`from ${address} ok`)).toMatch(/^from <ipv4:[a-z2-7]{5}> ok$/);
    },
  );

  it.each(['10.0.0.256', '10.0.0.260', '10.0.0.300', '10.0.0.1000', '256.0.0.1', '10.0.0.1.5'])(
    'leaves %s alone (not an address)',
    (text) => {
      expect(session().maskText(`from ${text} ok`)).toBe(`from ${text} ok`);
    },
  );
});

describe('maskValue and unmaskInput: depth limits', () => {
  const nest = (value: unknown, depth: number): unknown => (depth === 0 ? value : [nest(value, depth - 1)]);

  it('masks a value at the depth limit and replaces one deeper by a marker', () => {
    const masking = session();
    const atLimit = JSON.stringify(masking.maskValue(nest('a@b.cn', MASKING_LIMITS.depth)));
    expect(atLimit).toMatch(/<email:[a-z2-7]{5}>/);
    expect(masking.maskValue(nest('a@b.cn', MASKING_LIMITS.depth + 1))).toEqual(
      nest('[MASKED:depth]', MASKING_LIMITS.depth + 1),
    );
  });

  it('restores pseudonyms down to the depth limit and leaves deeper containers as they are', () => {
    const masking = session();
    const token = masking.maskText('a@b.cn');
    masking.markShown(token);
    expect(masking.unmaskInput(nest(token, MASKING_LIMITS.depth + 1))).toEqual({
      ok: true,
      value: nest('a@b.cn', MASKING_LIMITS.depth + 1),
    });
    expect(masking.unmaskInput(nest([token], MASKING_LIMITS.depth + 1))).toEqual({
      ok: true,
      value: nest([token], MASKING_LIMITS.depth + 1),
    });
  });
});

describe('maskText: escape decoding', () => {
  /** `\u0040` escaped again `layers - 1` times, as JSON inside JSON does. */
  const escapedAt = (layers: number) => `${'\\'.repeat(2 ** (layers - 1))}u0040`;

  it('decodes four layers of escaping and masks what they hide', () => {
    expect(session().maskText(`user a${escapedAt(4)}b.cn`)).toMatch(/^user <email:[a-z2-7]{5}>$/);
  });

  it('stops after four passes (a fifth layer stays escaped: bounded work)', () => {
    expect(session().maskText(`user a${escapedAt(5)}b.cn`)).toBe('user a\\u0040b.cn');
  });
});

describe('pseudonyms: collisions and restored entries', () => {
  it('gives a value a longer pseudonym when a restored entry holds its short one for another value', () => {
    const token = session().maskText('a@b.cn');
    const masking = session();
    masking.restoreEntries([{ token, kind: 'email', value: 'other@b.cn' }]);
    const longer = masking.maskText('a@b.cn');
    expect(longer).toMatch(/^<email:[a-z2-7]{7}>$/);
    expect(longer.slice(0, -1).startsWith(token.slice(0, -1))).toBe(true);
    masking.markShown(`${token} ${longer}`);
    expect(masking.unmaskInput({ to: longer, cc: token })).toEqual({
      ok: true,
      value: { to: 'a@b.cn', cc: 'other@b.cn' },
    });
  });

  it('keeps the first of two restored entries that conflict on the pseudonym or on the value', () => {
    const masking = session();
    const first = { token: '<email:aaaaa>', kind: 'email', value: 'first@b.cn' };
    masking.restoreEntries([
      first,
      { token: '<email:aaaaa>', kind: 'email', value: 'second@b.cn' },
      { token: '<email:bbbbb>', kind: 'email', value: 'first@b.cn' },
    ]);
    expect(masking.entries()).toEqual([first]);
    expect(masking.maskText('first@b.cn')).toBe('<email:aaaaa>');
    expect(masking.takeNewEntries()).toEqual([]);
  });
});
