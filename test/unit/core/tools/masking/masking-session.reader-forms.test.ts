import { describe, expect, it } from 'vitest';
import {
  createMaskingSession,
  type MaskingConfig,
} from '../../../../../packages/core/src/tools/masking/masking-session.ts';
import { buildNormalisedView } from '../../../../../packages/core/src/tools/masking/normalised-view.ts';

// Values written the way a reader (and a model) still reads them: digits of other scripts and Unicode's compatibility
// digits, Unicode spaces and dashes between digit groups, look-alikes of `@` and `.`, HTML character references and
// percent-encoded digits. Every value is synthetic. Each form is one the detectors once let through to the model.

const config: MaskingConfig = { mode: 'identifiers', secret: 'unit-test-masking-secret-of-at-least-32-characters' };
const PHONE = '13812345678';
const CARD = '6222021234567890128';
const EMAIL_USER = 'ops.lead';

const digitsIn = (zero: number) => (value: string) =>
  [...value].map((char) => (/[0-9]/.test(char) ? String.fromCodePoint(zero + Number(char)) : char)).join('');
const superscript = (value: string) => [...value].map((char) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[Number(char)] ?? char).join('');
const circled = (value: string) =>
  [...value].map((char) => (char === '0' ? '⓪' : String.fromCodePoint(0x2460 + Number(char) - 1))).join('');
const references = (value: string) => [...value].map((char) => `&#${char.codePointAt(0)};`).join('');

describe('maskText: values a reader still reads', () => {
  it.each([
    ['Arabic-Indic digits', digitsIn(0x660)],
    ['extended Arabic-Indic digits', digitsIn(0x6f0)],
    ['Devanagari digits', digitsIn(0x966)],
    ['Bengali digits', digitsIn(0x9e6)],
    ['Thai digits', digitsIn(0xe50)],
    ['mathematical bold digits (astral)', digitsIn(0x1d7ce)],
    ['mathematical monospace digits (astral)', digitsIn(0x1d7f6)],
    ['segmented digits (astral)', digitsIn(0x1fbf0)],
    ['superscript digits', superscript],
    ['circled digits', circled],
    ['HTML decimal references', references],
  ])('masks a phone number and a card number in %s', (_, write) => {
    const text = `user_phone=${write(PHONE)} card ${write(CARD)} ok`;
    const masked = createMaskingSession(config, 'run-forms').maskText(text);
    expect(masked).toMatch(/^user_phone=<phone:[a-z0-9]+> card <bank_card:[a-z0-9]+> ok$/);
  });

  it.each([
    ['no-break spaces', '\u00a0'],
    ['narrow no-break spaces', '\u202f'],
    ['figure spaces', '\u2007'],
    ['thin spaces', '\u2009'],
    ['ideographic spaces', '\u3000'],
    ['en dashes', '\u2013'],
    ['non-breaking hyphens', '\u2011'],
    ['minus signs', '\u2212'],
  ])('masks a phone and a card number whose groups are split by %s', (_, separator) => {
    const text = `phone 138${separator}1234${separator}5678 card 6222${separator}0212${separator}3456${separator}7890${separator}128`;
    const masked = createMaskingSession(config, 'run-forms').maskText(text);
    expect(masked).toMatch(/^phone <phone:[a-z0-9]+> card <bank_card:[a-z0-9]+>$/);
  });

  it.each([
    ['a small commercial at', `${EMAIL_USER}\ufe6bexample.com`],
    ['an ideographic full stop', `${EMAIL_USER}@example\u3002com`],
    ['a small full stop', `${EMAIL_USER}@example\ufe52com`],
    ['an HTML reference of the at sign', `${EMAIL_USER}&#64;example.com`],
    ['a hexadecimal HTML reference of the at sign', `${EMAIL_USER}&#x40;example.com`],
    ['a named HTML reference of the at sign', `${EMAIL_USER}&commat;example.com`],
    [
      'mathematical bold letters',
      `${[...'ops'].map((c) => String.fromCodePoint(0x1d41a + c.charCodeAt(0) - 97)).join('')}@example.com`,
    ],
  ])('masks an e-mail address written with %s', (_, email) => {
    const masked = createMaskingSession(config, 'run-forms').maskText(`mail ${email} sent`);
    expect(masked).toMatch(/^mail <email:[a-z0-9]+> sent$/);
  });

  it('masks a phone number whose digits are percent-encoded', () => {
    const encoded = [...PHONE].map((digit) => `%3${digit}`).join('');
    expect(createMaskingSession(config, 'run-forms').maskText(`phone=${encoded}&x=1`)).toMatch(
      /^phone=<phone:[a-z0-9]+>&x=1$/,
    );
  });

  it('leaves text without values as it was: CJK punctuation, spaces, dashes and lone references', () => {
    const text = '订单失败。请在 14：05 后重试 — 共　3 次 &amp; 1–2 分钟 &#169; ٣ ²';
    expect(createMaskingSession(config, 'run-forms').maskText(text)).toBe(text);
  });
});

// Hostile text made of the new forms only, 200 k characters each: every one must finish (no backtracking, no pass per
// character over the rest) and read as it should, the three-character reading of `⒛` included.
describe('the reader forms on hostile input', () => {
  const HOSTILE_LENGTH = 200_000;
  it.each([
    ['decimal references', '&#49;', '1'],
    ['hexadecimal references', '&#x1D7CF;', '1'],
    ['named references', '&commat;', '@'],
    ['unterminated references', '&#12345678', '&#12345678'],
    ['percent-encoded digits', '%31', '1'],
    ['digits with a full stop', '\u249b', '20.'],
    ['mathematical digits', '\u{1d7cf}', '1'],
    ['Arabic-Indic digits and no-break spaces', '\u0661\u00a0', '1 '],
    ['ideographic full stops between letters', 'a\u3002', 'a.'],
  ])(
    'reads 200 k characters of %s in one pass',
    (_, piece, read) => {
      const text = piece.repeat(Math.ceil(HOSTILE_LENGTH / piece.length));
      const view = buildNormalisedView(text);
      expect(view?.text ?? text).toBe(read.repeat(Math.ceil(HOSTILE_LENGTH / piece.length)));
      expect(typeof createMaskingSession(config, 'run-hostile-forms').maskText(text)).toBe('string');
    },
    20_000,
  );
});
