// NOTE: over 300 lines on purpose: one masking session's behaviour, live, replayed and on hostile text; a masking
// module under mutation testing whose killing tests this file holds.
import { describe, expect, it } from 'vitest';
import { loadCustomRules } from '../../../../../packages/core/src/tools/masking/custom-patterns.ts';
import {
  createMaskingSession,
  MASKING_LIMITS,
  type MaskingConfig,
} from '../../../../../packages/core/src/tools/masking/masking-session.ts';

const SECRET = 'unit-test-masking-secret-of-at-least-32-characters';
const config: MaskingConfig = { mode: 'identifiers', secret: SECRET };
const session = (overrides: Partial<MaskingConfig> = {}, runId = 'run-a') =>
  createMaskingSession({ ...config, ...overrides }, runId);

// Synthetic values: a card number that passes Luhn, a resident id with a valid check digit.
const CARD = '4111111111111111';
const RESIDENT_ID = '11010519491231002X';

describe('createMaskingSession', () => {
  it('redacts secrets with typed markers and keeps the structure around them', () => {
    const masking = session();
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';
    expect(masking.maskText(`auth ok token=${jwt}`)).toBe('auth ok token=[REDACTED:jwt]');
    expect(masking.maskText(`header ${jwt} end`)).toBe('header [REDACTED:jwt] end');
    expect(masking.maskText('Authorization: Bearer abcdefghijklmnop1234')).toBe(
      'Authorization: Bearer [REDACTED:bearer]',
    );
    expect(masking.maskText('dsn mysql://app:s3cr3t-pw@db.internal:3306/shop')).toBe(
      'dsn mysql://app:[REDACTED:password]@db.internal:3306/shop',
    );
    expect(masking.maskText('key AKIAIOSFODNN7EXAMPLE used')).toBe('key [REDACTED:aws_access_key] used');
    expect(masking.maskText('"db_password": "hunter2!"')).toBe('"db_password": "[REDACTED:password]"');
    expect(masking.maskText('aws_secret_access_key=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY')).toBe(
      'aws_secret_access_key=[REDACTED:aws_secret_key]',
    );
    expect(masking.maskText('ghp_0123456789abcdefghijABCDEFGHIJ0123456789 leaked')).toBe(
      '[REDACTED:vendor_token] leaked',
    );
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAKC==\n-----END RSA PRIVATE KEY-----';
    expect(masking.maskText(`k=${pem}`)).toBe(
      'k=-----BEGIN RSA PRIVATE KEY-----[REDACTED:pem]-----END RSA PRIVATE KEY-----',
    );
    // A block its source cut before the END line loses everything after its header that looks like a PEM body.
    expect(masking.maskText('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nAAEC 。日志结束')).toBe(
      '-----BEGIN PRIVATE KEY-----[REDACTED:pem]。日志结束',
    );
  });

  it('does not take counters or lengths for secrets', () => {
    const masking = session();
    expect(masking.maskText('max_tokens=4096 token_count: 5 password_length=12')).toBe(
      'max_tokens=4096 token_count: 5 password_length=12',
    );
  });

  it('pseudonymises identifiers with typed, short, stable pseudonyms', () => {
    const masking = session();
    const text = `user alice.w@example.cn from 203.0.113.7 phone 13812345678 card ${CARD} id ${RESIDENT_ID}`;
    const masked = masking.maskText(text);
    expect(masked).toMatch(
      /^user <email:[a-z2-7]{5}> from <ipv4:[a-z2-7]{5}> phone <phone:[a-z2-7]{5}> card <bank_card:[a-z2-7]{5}> id <cn_id:[a-z2-7]{5}>$/,
    );
    expect(masking.maskText('again alice.w@example.cn')).toBe(`again ${masked.split(' ')[1]}`);
    expect(masking.reveal(masked)).toBe(text);
  });

  it('gives the same value unrelated pseudonyms in two runs (keyed per run, never a bare hash)', () => {
    const first = session({}, 'run-a').maskText('alice.w@example.cn');
    const second = session({}, 'run-b').maskText('alice.w@example.cn');
    const otherSecret = session({ secret: `${SECRET}-other` }, 'run-a').maskText('alice.w@example.cn');
    expect(first).not.toBe(second);
    expect(first).not.toBe(otherSecret);
  });

  it('leaves numbers that fail their checksum alone', () => {
    const masking = session();
    expect(masking.maskText('order 4111111111111112 and id 110105194912310021')).toBe(
      'order 4111111111111112 and id 110105194912310021',
    );
  });

  it('keeps the recognisable part of ARNs and AWS resource ids', () => {
    const masking = session();
    expect(masking.maskText('arn:aws:lambda:cn-north-1:123456789012:function:pay-api')).toMatch(
      /^arn:aws:lambda:cn-north-1:<aws_account:[a-z2-7]{5}>:function:pay-api$/,
    );
    expect(masking.maskText('instance i-0abc123def4567890 vol-1234abcd')).toMatch(
      /^instance i-<aws_id:[a-z2-7]{5}> vol-<aws_id:[a-z2-7]{5}>$/,
    );
    expect(masking.maskText('arn:aws:iam::123456789012:user/zhang.wei')).toMatch(
      /^arn:aws:iam::<aws_account:[a-z2-7]{5}>:user\/<iam_user:[a-z2-7]{5}>$/,
    );
  });

  it('masks JSON-escaped text inside a string', () => {
    const masking = session();
    const masked = masking.maskText('{\\"email\\":\\"bob\\u0040example.com\\",\\"password\\":\\"pw1\\"}');
    expect(masked).toMatch(/^\{"email":"<email:[a-z2-7]{5}>","password":"\[REDACTED:password\]"\}$/);
  });

  it('masks a JSON value string by string, redacting fields named like secrets and numbers that are identifiers', () => {
    const masking = session();
    const masked = masking.maskValue({
      columns: ['user_id', 'mobile', 'api_key'],
      rows: [[10086, 13812345678, 'plain-looking-value']],
      account_id: '123456789012',
    }) as { rows: unknown[][]; account_id: string };
    expect(masked.rows[0]?.[0]).toBe(10086);
    expect(masked.rows[0]?.[1]).toMatch(/^<phone:[a-z2-7]{5}>$/);
    expect(masked.account_id).toMatch(/^<aws_account:[a-z2-7]{5}>$/);
    expect(masking.maskValue('plain-looking-value', 'api_key')).toBe('[REDACTED:api_key]');
  });

  it('is idempotent: masked text masked again is unchanged', async () => {
    const masking = session({
      rules: await loadCustomRules([{ kind: 'anyword', pattern: '[a-z]{5}' }]),
    });
    const once = masking.maskText('mail bob@example.com now');
    expect(masking.maskText(once)).toBe(once);
  });

  it('masks only secrets in secrets-only mode and passes arguments through', () => {
    const masking = session({ mode: 'secrets-only' });
    expect(masking.maskText('bob@example.com password=x1')).toBe('bob@example.com password=[REDACTED:password]');
    expect(masking.unmaskInput({ keyword: '<email:abcde>' })).toEqual({
      ok: true,
      value: { keyword: '<email:abcde>' },
    });
  });

  it('applies deployment patterns and exclusions', async () => {
    const masking = session({
      rules: await loadCustomRules([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }], ['noreply@example\\.com']),
    });
    expect(masking.maskText('CUST-004211 wrote to noreply@example.com')).toMatch(
      /^<customer_id:[a-z2-7]{5}> wrote to noreply@example\.com$/,
    );
  });

  it('restores only pseudonyms the run has shown, and refuses any other', () => {
    const masking = session();
    const masked = masking.maskText('bob@example.com 13812345678');
    const [email, phone] = masked.split(' ') as [string, string];
    // Created, but not yet shown to the model: refused.
    expect(masking.unmaskInput({ keyword: email })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    masking.markShown(JSON.stringify({ data: email }));
    expect(masking.unmaskInput({ keyword: `from ${email}`, params: { phone } })).toEqual({
      ok: false,
      code: 'UNKNOWN_PSEUDONYM',
    });
    expect(masking.unmaskInput({ keyword: `from ${email}` })).toEqual({
      ok: true,
      value: { keyword: 'from bob@example.com' },
    });
    expect(masking.unmaskInput({ keyword: '<email:zzzzz>' })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    const foreign = session({}, 'run-b');
    const foreignToken = foreign.maskText('bob@example.com');
    expect(masking.unmaskInput({ keyword: foreignToken })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
  });

  it('gives a number back for the pseudonym of a numeric cell, only in a field that takes a number', () => {
    const masking = session();
    const token = masking.maskValue(13812345678) as string;
    masking.markShown(token);
    expect(masking.unmaskInput({ params: { mobile: token, phone: token } }, new Set(['mobile']))).toEqual({
      ok: true,
      value: { params: { mobile: 13812345678, phone: '13812345678' } },
    });
  });

  it('hands each new entry to the store once', () => {
    const masking = session();
    masking.maskText('a@example.com b@example.com a@example.com');
    expect(masking.takeNewEntries().map((entry) => entry.value)).toEqual(['a@example.com', 'b@example.com']);
    expect(masking.takeNewEntries()).toEqual([]);
  });

  it('masks a text masked before as it would mask it anew, also once restored entries give a value its pseudonym', () => {
    const full = session({}, 'run-full');
    for (let index = 0; index < MASKING_LIMITS.entries; index += 1) full.maskText(`user${index}@example.com`);
    expect(full.maskText('late late@example.com')).toBe('late [MASKED:email]');
    expect(full.maskText('late late@example.com')).toBe('late [MASKED:email]');
    // A stored entry of the value taken in afterwards is the value's pseudonym from then on, in a text seen before too.
    const token = '<email:abcde>';
    full.restoreEntries([{ token, kind: 'email', value: 'late@example.com' }]);
    expect(full.maskText('late late@example.com')).toBe(`late ${token}`);
  });

  it('cuts an oversized text at a whitespace, never inside a value', () => {
    const masking = session();
    const text = `${'x'.repeat(MASKING_LIMITS.textChars - 6)} 13812345678 tail`;
    const masked = masking.maskText(text);
    expect(masked).not.toContain('1381234');
    expect(masked.length).toBeLessThanOrEqual(MASKING_LIMITS.textChars);
  });
});

describe('createMaskingSession in a replay of a recording', () => {
  const recordedPseudonyms = new Set(['<phone:k3f2a>', '<email:abcde>']);

  it('passes the recording’s pseudonyms verbatim and refuses any other it has not shown', () => {
    const masking = createMaskingSession(config, 'run-replay', { recordedPseudonyms });
    const own = masking.maskText('客户 13812345678');
    masking.markShown(own);

    expect(masking.unmaskInput({ keyword: '<phone:k3f2a>', note: 'mail <email:abcde>' })).toEqual({
      ok: true,
      value: { keyword: '<phone:k3f2a>', note: 'mail <email:abcde>' },
    });
    // The run's own pseudonyms are still restored; a made-up one is refused as in any run.
    expect(masking.unmaskInput({ keyword: own.slice(3) })).toEqual({ ok: true, value: { keyword: '13812345678' } });
    expect(masking.unmaskInput({ keyword: '<phone:zzzzz>' })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
    // The recorded observations pass through masking as they are: pseudonyms and markers whole, nothing re-keyed.
    const recorded = 'user <phone:k3f2a> password=[REDACTED:password] ip <ipv4:qqqqq>';
    expect(masking.maskText(recorded)).toBe(recorded);
  });

  it('refuses the recording’s pseudonyms in a run that is not its replay', () => {
    expect(session().unmaskInput({ keyword: '<phone:k3f2a>' })).toEqual({ ok: false, code: 'UNKNOWN_PSEUDONYM' });
  });
});

describe('createMaskingSession on hostile text (issue 32, items 7 and 8)', () => {
  const TOKEN = /<([a-z_]+):[a-z2-7]{5}>/;

  it.each([
    ['note=[MASKED:13912345678]', '13912345678', 'phone'],
    ['card [REDACTED:4111111111111111]', CARD, 'bank_card'],
    ['contact <x_13912345678:aaaaa>', '13912345678', 'phone'],
    ['mail [MASKED:bob@example.com]', 'bob@example.com', 'email'],
    ['id <cn_id:k3f2a> [MASKED:11010519491231002X]', RESIDENT_ID, 'cn_id'],
  ])('masks the value inside the marker look-alike %s', (text, value, kind) => {
    const masked = session().maskText(text);
    expect(masked).not.toContain(value);
    expect(masked.match(TOKEN)?.[1]).toBe(kind);
  });

  it('keeps markers of known kinds and pseudonyms this run holds whole', async () => {
    const masking = session({ rules: await loadCustomRules([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }]) });
    const token = masking.maskText('13912345678');
    const text = `${token} [MASKED:phone] [MASKED:customer_id] [REDACTED:password] [MASKED:depth] [MASKED:oversized]`;
    expect(masking.maskText(text)).toBe(text);
  });

  it('does not protect a pseudonym this run does not hold or a marker of an unknown kind', async () => {
    const masking = session({ rules: await loadCustomRules([{ kind: 'word', pattern: 'secretive' }]) });
    expect(masking.maskText('[MASKED:secretive]')).toMatch(/^\[MASKED:<word:[a-z2-7]{5}>\]$/);
    expect(masking.maskText('<secretive:abcde>')).toMatch(/^<<word:[a-z2-7]{5}>:abcde>$/);
    // Held: the same text is kept whole once the run gave the token.
    const held = masking.maskText('secretive');
    expect(masking.maskText(`${held} again`)).toBe(`${held} again`);
  });

  it('redacts a secret hidden in a redaction look-alike after its key', () => {
    const masking = session();
    expect(masking.maskText('password=[REDACTED:hunter2]')).toBe('password=[REDACTED:password]');
    expect(masking.maskText('Authorization: [REDACTED:abcdefghijklmnopqrstuv]')).toBe(
      'Authorization: [REDACTED:bearer]',
    );
    expect(masking.maskText('password=[REDACTED:password]')).toBe('password=[REDACTED:password]');
  });

  it('masks a Chinese mobile number written in full-width digits, with the pseudonym of its ASCII form', () => {
    const masking = session();
    const ascii = masking.maskText('13912345678');
    expect(masking.maskText('电话：１３９１２３４５６７８，请回电')).toBe(`电话：${ascii}，请回电`);
  });

  it('masks a URL-encoded e-mail address in a query string', () => {
    const masking = session();
    const ascii = masking.maskText('a@b.cn');
    expect(masking.maskText('GET /reset?user=a%40b.cn&step=2 200')).toBe(`GET /reset?user=${ascii}&step=2 200`);
    expect(masking.maskText('GET /reset?user=bob%40Example%2Ecom 200')).toMatch(
      /^GET \/reset\?user=<email:[a-z2-7]{5}> 200$/,
    );
  });

  const INVISIBLES = [
    '\u200b',
    '\u200c',
    '\u200d',
    '\u2060',
    '\ufeff',
    '\u00ad',
    '\u180e',
    '\u200e',
    '\u202c',
    '\u2066',
  ];
  it.each(INVISIBLES.map((character) => [character.charCodeAt(0).toString(16).padStart(4, '0'), character]))(
    'masks a value split by the invisible character U+%s',
    (_code, invisible) => {
      const masking = session();
      const ascii = masking.maskText('13912345678');
      const split = `139${invisible}1234${invisible}5678`;
      expect(masking.maskText(`tel ${split} ok`)).toBe(`tel ${ascii} ok`);
      expect(masking.maskText(`mail bob${invisible}@example.com`)).toMatch(/^mail <email:[a-z2-7]{5}>$/);
    },
  );

  // Every default-ignorable code point renders as nothing, so each can split a value as the ones above do; among them
  // the astral tag characters and variation selectors (two UTF-16 units each) and the Hangul fillers.
  const MORE_INVISIBLES = ['\u{E0031}', '\u{E0001}', '\u{E007F}', '\u{E0100}', '\u{E01EF}', '\u{1D173}', '\u{1BCA0}'];
  const MORE_BMP_INVISIBLES = ['\u3164', '\uffa0', '\u115f', '\u17b4', '\u180b', '\u2065', '\ufff0'];
  it.each(
    [...MORE_INVISIBLES, ...MORE_BMP_INVISIBLES].map((character) => [
      (character.codePointAt(0) ?? 0).toString(16).toUpperCase(),
      character,
    ]),
  )('masks a value split by the default-ignorable character U+%s', (_code, invisible) => {
    const masking = session();
    const ascii = masking.maskText('13912345678');
    expect(masking.maskText(`tel 139${invisible}12345678 ok`)).toBe(`tel ${ascii} ok`);
    expect(masking.maskText(`tel 139${invisible}1234${invisible}5678 ok`)).toBe(`tel ${ascii} ok`);
    expect(masking.maskText(`mail bob${invisible}@example.com`)).toMatch(/^mail <email:[a-z2-7]{5}>$/);
  });

  it('masks a value split by a tag character across the 16 KiB cut whole, never its first part', () => {
    const masking = session();
    for (let shift = 0; shift < 14; shift += 1) {
      const text = `${'x'.repeat(MASKING_LIMITS.textChars - 8 - shift)} 139\u{E0031}1234\u{E0031}5678 tail`;
      const masked = masking.maskText(text);
      expect(masked, `shift ${shift}`).not.toMatch(/139|1234|5678/);
      expect(masked.length).toBeLessThanOrEqual(MASKING_LIMITS.textChars);
    }
  });

  it('masks the whole of a value an invisible character splits, never only the tail the text shows as it is', () => {
    const masking = session();
    const whole = masking.maskText('zhang.min@example.net');
    expect(masking.maskText('mail zha\u200bng.m\u2060in@example.net ok')).toBe(`mail ${whole} ok`);
    const phone = masking.maskText('13912345678');
    // The view reads `a13912345678` (no phone after a letter); the text as it is shows one after the invisible mark.
    expect(masking.maskText('a\u200b13912345678')).toBe(`a\u200b${phone}`);
    expect(masking.maskText('13912345678\u200b9')).toBe(`${phone}\u200b9`);
  });

  it('masks a full-width value whose digits straddle the 16 KiB cut whole, never its first part', () => {
    const masking = session();
    const fullWidth = '１３９１２３４５６７８';
    const text = `${'x'.repeat(MASKING_LIMITS.textChars - 5)} ${fullWidth} tail`;
    const masked = masking.maskText(text);
    expect(masked).not.toContain('１３９');
    expect(masked.length).toBeLessThanOrEqual(MASKING_LIMITS.textChars);
    const split = `${'x'.repeat(MASKING_LIMITS.textChars - 8)} 139\u200b1234\u200b5678 tail`;
    expect(masking.maskText(split)).not.toContain('139');
  });

  it('leaves ordinary percent signs, full-width punctuation and invisible characters without a value alone', () => {
    const masking = session();
    const text = 'cpu 95% mem 50%2 电话：无，ｏｋ！ zero\u200bwidth %E4%B8%AD 100%40';
    expect(masking.maskText(text)).toBe(text);
  });
});
