import { describe, expect, it } from 'vitest';
import { loadCustomRules } from '../../../../../packages/core/src/tools/masking/custom-patterns.ts';
import {
  createMaskingSession,
  MASKING_LIMITS,
  type MaskingConfig,
} from '../../../../../packages/core/src/tools/masking/masking-session.ts';
import { deriveRunMaskingKeys, pseudonymCode } from '../../../../../packages/core/src/tools/masking/pseudonym-keys.ts';

// What the session does with JSON values, pseudonym collisions, session markers and the way back (issue 33: each case
// kills a surviving mutant of masking-session.ts). Every value is synthetic.

const SECRET = 'unit-test-masking-secret-of-at-least-32-characters';
const RUN = 'run-values';
const config: MaskingConfig = { mode: 'identifiers', secret: SECRET };
const ACCOUNT = '123456789012';
const PHONE = '13912345678';

/** The pseudonym the run would give `value` of `kind` at code `length`, before any collision. */
const tokenAt = (kind: string, value: string, length: number) =>
  `<${kind}:${pseudonymCode(deriveRunMaskingKeys(SECRET, RUN).pseudonymKey, kind, value, length)}>`;

describe('maskValue: account ids by key', () => {
  it.each([
    ['thirteen digits', '1234567890123'],
    ['a letter before', `x${ACCOUNT}`],
    ['a letter after', `${ACCOUNT}x`],
  ])('keeps a value with %s under an account key (not an account id)', (_, value) => {
    expect(createMaskingSession(config, RUN).maskValue({ accountId: value })).toEqual({ accountId: value });
  });

  it('keeps an account id under an account key when only secrets are masked', () => {
    const session = createMaskingSession({ ...config, mode: 'secrets-only' }, RUN);
    expect(session.maskValue({ accountId: ACCOUNT })).toEqual({ accountId: ACCOUNT });
  });
});

describe('maskValue: values under secret keys and other JSON values', () => {
  it('walks an object under a secret-named key, judging each field by its own name', () => {
    const masked = createMaskingSession(config, RUN).maskValue({
      credentials: { username: 'app', password: 'hunter2' },
    });
    expect(masked).toEqual({ credentials: { username: 'app', password: '[REDACTED:password]' } });
  });

  it('keeps an empty secret empty', () => {
    expect(createMaskingSession(config, RUN).maskValue({ password: '' })).toEqual({ password: '' });
  });

  it('keeps null, booleans and numbers no detector finds anything in as they are', () => {
    expect(createMaskingSession(config, RUN).maskValue({ a: null, b: true, n: 1_234_567 })).toEqual({
      a: null,
      b: true,
      n: 1_234_567,
    });
  });

  it("masks a number of a million or more by its text, and leaves smaller ones to no deployer's pattern", async () => {
    const rules = await loadCustomRules([{ kind: 'pin', pattern: '[0-9]{6}' }]);
    const session = createMaskingSession({ ...config, rules }, RUN);
    expect(session.maskValue({ n: 123_456 })).toEqual({ n: 123_456 });
    expect(session.maskValue({ n: 1_000_000 })).toEqual({ n: expect.stringMatching(/^<pin:[a-z2-7]{5}>0$/) });
    // Not a safe integer: its text is not the value it came from, so it is not read as one.
    expect(session.maskValue({ n: 2 ** 60 })).toEqual({ n: 2 ** 60 });
  });

  it('replaces an object nested deeper than the depth limit by a marker', () => {
    const nest = (value: unknown, depth: number): unknown => (depth === 0 ? value : { inner: nest(value, depth - 1) });
    const session = createMaskingSession(config, RUN);
    expect(session.maskValue(nest(PHONE, MASKING_LIMITS.depth + 1))).toEqual(
      nest('[MASKED:depth]', MASKING_LIMITS.depth + 1),
    );
    expect(JSON.stringify(session.maskValue(nest(PHONE, MASKING_LIMITS.depth)))).toMatch(/<phone:[a-z2-7]{5}>/);
  });
});

describe('maskText: the longest value a pseudonym is given', () => {
  /** An e-mail address of exactly `length` characters (64-character local part). */
  function emailOf(length: number): string {
    const domain = length - 65;
    const labels = `${'b'.repeat(63)}.${'b'.repeat(63)}.`;
    return `${'a'.repeat(64)}@${labels}${'c'.repeat(domain - labels.length - 3)}.cn`;
  }

  it('gives a value of exactly the limit a pseudonym, and masks a longer one irreversibly', () => {
    expect(emailOf(MASKING_LIMITS.valueChars)).toHaveLength(MASKING_LIMITS.valueChars);
    const session = createMaskingSession(config, RUN);
    expect(session.maskText(`to ${emailOf(MASKING_LIMITS.valueChars)}`)).toMatch(/^to <email:[a-z2-7]{5}>$/);
    expect(session.maskText(`to ${emailOf(MASKING_LIMITS.valueChars + 1)}`)).toBe('to [MASKED:email]');
  });
});

describe('maskText: pseudonym collisions', () => {
  const occupied = (lengths: number[]) =>
    lengths.map((length, index) => ({
      token: tokenAt('phone', PHONE, length),
      kind: 'phone',
      value: `1380000000${index}`,
    }));

  it('lengthens the code up to 13 characters while the shorter ones belong to other values', () => {
    const session = createMaskingSession(config, RUN);
    session.restoreEntries(occupied([5, 7, 9, 11]));
    expect(session.maskText(PHONE)).toBe(tokenAt('phone', PHONE, 13));
  });

  it("masks irreversibly when every length is taken, never sharing another value's pseudonym", () => {
    const session = createMaskingSession(config, RUN);
    session.restoreEntries(occupied([5, 7, 9, 11, 13]));
    expect(session.maskText(PHONE)).toBe('[MASKED:phone]');
  });
});

describe('maskText: the session markers', () => {
  it("keeps its own markers whole even where a deployer's pattern matches their word", async () => {
    const rules = await loadCustomRules([{ kind: 'code', pattern: 'depth|oversized' }]);
    const session = createMaskingSession({ ...config, rules }, RUN);
    expect(session.maskText('[MASKED:depth] [MASKED:oversized] depth')).toMatch(
      /^\[MASKED:depth\] \[MASKED:oversized\] <code:[a-z2-7]{5}>$/,
    );
  });
});

describe('maskText: a detected identifier wins over a marker', () => {
  it("masks a phone number written inside a marker of a deployer's kind", async () => {
    const rules = await loadCustomRules([{ kind: 'cust_13912345678', pattern: 'CUST-[0-9]{4}' }]);
    const session = createMaskingSession({ ...config, rules }, RUN);
    expect(session.maskText('[MASKED:cust_13912345678]')).toMatch(/^\[MASKED:cust_<phone:[a-z2-7]{5}>\]$/);
    // The same where the text also needs its normalised view (a full-width letter).
    expect(session.maskText('[MASKED:cust_13912345678] \uff58')).toMatch(
      /^\[MASKED:cust_<phone:[a-z2-7]{5}>\] \uff58$/,
    );
  });
});

describe('markShown and unmaskInput', () => {
  it('does not mark a pseudonym shown before the run gives it, so it stays refused', () => {
    const session = createMaskingSession(config, RUN);
    const token = tokenAt('phone', PHONE, 5);
    // The run holds another pseudonym already, so markShown reads the text.
    session.markShown(session.maskText('a@b.cn'));
    session.markShown(`guess ${token}`);
    expect(session.maskText(PHONE)).toBe(token);
    expect(session.unmaskInput({ q: token })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    session.markShown(token);
    expect(session.unmaskInput({ q: token })).toEqual({ ok: true, value: { q: PHONE } });
  });

  it('refuses a pseudonym a replay did not record, even when only secrets are masked', () => {
    const session = createMaskingSession({ ...config, mode: 'secrets-only' }, RUN, {
      recordedPseudonyms: new Set(['<phone:aaaaa>']),
    });
    expect(session.unmaskInput({ q: '<phone:aaaaa>' })).toEqual({ ok: true, value: { q: '<phone:aaaaa>' } });
    expect(session.unmaskInput({ q: '<phone:bbbbb>' })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
  });
});
