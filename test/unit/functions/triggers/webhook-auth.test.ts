import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bearerTokenMatches,
  isJsonContentType,
  pagerDutySignatureMatches,
  sha256SignatureMatches,
} from '../../../../functions/triggers/webhook-auth.ts';

// The webhook routes are not behind IAM: these two checks are their authentication. Every accepted and refused form
// is a fixed example, each limit is tried at its edge, and a valid credential is tried in every position it may take.

const TOKEN = 'am-token-0123456789';

describe('bearerTokenMatches', () => {
  it('accepts exactly `Bearer <token>`', () => {
    expect(bearerTokenMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another token', 'Bearer am-token-0123456788'],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, -1)}`],
    ['the token followed by more', `Bearer ${TOKEN}x`],
    ['the bare token', TOKEN],
    ['a lower-case scheme', `bearer ${TOKEN}`],
    ['another scheme', `Basic ${TOKEN}`],
    ['text before the scheme', `xBearer ${TOKEN}`],
    ['two spaces', `Bearer  ${TOKEN}`],
    ['a trailing space', `Bearer ${TOKEN} `],
    ['a trailing newline', `Bearer ${TOKEN}\n`],
    ['an empty token', 'Bearer '],
  ])('refuses %s', (_label, header) => {
    expect(bearerTokenMatches(header, TOKEN)).toBe(false);
  });

  it('refuses a token with a character outside printable ASCII, even when it is the configured one', () => {
    expect(bearerTokenMatches('Bearer tök', 'tök')).toBe(false);
  });

  it('reads a header of exactly 1,024 characters and refuses one character more', () => {
    const token = 'a'.repeat(1_024 - 'Bearer '.length);
    expect(bearerTokenMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerTokenMatches(`Bearer ${token}a`, `${token}a`)).toBe(false);
  });
});

describe('pagerDutySignatureMatches', () => {
  const body = Buffer.from('{"event":{"id":"01ABC"}}');
  const sign = (secret: string, bytes = body) => `v1=${createHmac('sha256', secret).update(bytes).digest('hex')}`;
  const other = sign('another-secret');

  it('accepts the HMAC of the raw body with the secret', () => {
    expect(pagerDutySignatureMatches(sign('s1'), body, ['s1'])).toBe('VALID');
  });

  it('accepts any one valid signature of several, in any position, with any one of several secrets', () => {
    expect(pagerDutySignatureMatches(`${sign('s1')},${other}`, body, ['s1'])).toBe('VALID');
    expect(pagerDutySignatureMatches(`${other}, ${sign('s1')}`, body, ['s1'])).toBe('VALID');
    expect(pagerDutySignatureMatches(sign('s1'), body, ['s1', 's2'])).toBe('VALID');
    expect(pagerDutySignatureMatches(sign('s2'), body, ['s1', 's2'])).toBe('VALID');
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a blank header', '  '],
  ])('answers MISSING for %s', (_label, header) => {
    expect(pagerDutySignatureMatches(header, body, ['s1'])).toBe('MISSING');
  });

  it.each([
    ['a signature with another secret', () => other],
    ['the signature of another body', () => sign('s1', Buffer.from('{"event":{"id":"01ABD"}}'))],
    ['an upper-case hex digest', () => `v1=${sign('s1').slice(3).toUpperCase()}`],
    ['another version', () => `v0=${sign('s1').slice(3)}`],
    ['text before the version', () => `xv1=${sign('s1').slice(3)}`],
    ['a digest one digit too long', () => `${sign('s1')}0`],
    ['a digest one digit short', () => sign('s1').slice(0, -1)],
    ['no parsable signature at all', () => 'garbage'],
  ])('answers INVALID for %s', (_label, header) => {
    expect(pagerDutySignatureMatches(header(), body, ['s1'])).toBe('INVALID');
  });

  it('answers INVALID when no secret is configured', () => {
    expect(pagerDutySignatureMatches(sign('s1'), body, [])).toBe('INVALID');
  });

  it('reads a header of exactly 1,024 characters and refuses one character more', () => {
    const signature = sign('s1');
    const padded = `${signature}${' '.repeat(1_024 - signature.length)}`;
    expect(padded).toHaveLength(1_024);
    expect(pagerDutySignatureMatches(padded, body, ['s1'])).toBe('VALID');
    expect(pagerDutySignatureMatches(`${padded} `, body, ['s1'])).toBe('INVALID');
  });

  it('reads the first eight signatures and no more', () => {
    const junk = (count: number) => Array.from({ length: count }, () => other);
    expect(pagerDutySignatureMatches([...junk(7), sign('s1')].join(','), body, ['s1'])).toBe('VALID');
    expect(pagerDutySignatureMatches([...junk(8), sign('s1')].join(','), body, ['s1'])).toBe('INVALID');
  });
});

describe('sha256SignatureMatches', () => {
  // GitHub's documented example ("Validating webhook deliveries"): the secret "It's a Secret to Everybody" and the body
  // "Hello, World!" give this X-Hub-Signature-256.
  const GITHUB_EXAMPLE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
  const body = Buffer.from('{"deployment_status":{"state":"success"}}');
  const sign = (secret: string, bytes = body) => `sha256=${createHmac('sha256', secret).update(bytes).digest('hex')}`;

  it('accepts GitHub’s documented example signature', () => {
    expect(sha256SignatureMatches(GITHUB_EXAMPLE, Buffer.from('Hello, World!'), ["It's a Secret to Everybody"])).toBe(
      'VALID',
    );
  });

  it('accepts the HMAC with any one of several secrets (a rotation)', () => {
    expect(sha256SignatureMatches(sign('s1'), body, ['s0', 's1'])).toBe('VALID');
    expect(sha256SignatureMatches(` ${sign('s0')} `, body, ['s0', 's1'])).toBe('VALID');
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['a blank header', '  '],
  ])('answers MISSING for %s', (_label, header) => {
    expect(sha256SignatureMatches(header, body, ['s1'])).toBe('MISSING');
  });

  it.each([
    ['a signature with another secret', () => sign('s2')],
    ['the signature of another body', () => sign('s1', Buffer.from('{}'))],
    ['GitHub’s legacy SHA-1 form', () => `sha1=${createHmac('sha1', 's1').update(body).digest('hex')}`],
    ['an upper-case hex digest', () => `sha256=${sign('s1').slice(7).toUpperCase()}`],
    ['PagerDuty’s form', () => `v1=${sign('s1').slice(7)}`],
    ['text before the scheme', () => `xsha256=${sign('s1').slice(7)}`],
    ['a digest one digit short', () => sign('s1').slice(0, -1)],
    ['a digest one digit too long', () => `${sign('s1')}0`],
    ['a second signature after a wrong first', () => `${sign('s2')},${sign('s1')}`],
  ])('answers INVALID for %s', (_label, header) => {
    expect(sha256SignatureMatches(header(), body, ['s1'])).toBe('INVALID');
  });

  it('answers INVALID when no secret is configured', () => {
    expect(sha256SignatureMatches(sign('s1'), body, [])).toBe('INVALID');
  });

  it('reads a header of exactly 1,024 characters and refuses one character more', () => {
    const padded = `${sign('s1')}${' '.repeat(1_024 - sign('s1').length)}`;
    expect(sha256SignatureMatches(padded, body, ['s1'])).toBe('VALID');
    expect(sha256SignatureMatches(`${padded} `, body, ['s1'])).toBe('INVALID');
  });
});

describe('isJsonContentType', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON; Charset=UTF-8',
    'application/json;charset="utf-8"',
    'application/json ; charset=utf8',
  ])('accepts %s (what Alertmanager and PagerDuty send, any case)', (type) => {
    expect(isJsonContentType(type)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
    'application/json-seq',
    'text/json',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf-16',
    'text/html, application/json',
    `application/json; ${'x'.repeat(300)}`,
  ])('refuses %s', (type) => {
    expect(isJsonContentType(type)).toBe(false);
  });

  it('reads a header of exactly 200 characters and refuses one character more', () => {
    const padded = (length: number) => {
      const type = 'application/json; charset=utf-8';
      return `application/json;${' '.repeat(length - type.length + 1)}charset=utf-8`;
    };
    expect(padded(200)).toHaveLength(200);
    expect(isJsonContentType(padded(200))).toBe(true);
    expect(isJsonContentType(padded(201))).toBe(false);
  });

  it.each(['application/json; boundary=x', 'application/json; foo', 'application/json; version=1; charset=utf-8'])(
    'accepts %s (a parameter other than charset is not read)',
    (type) => {
      expect(isJsonContentType(type)).toBe(true);
    },
  );

  it.each([
    ['charset = utf-8', true],
    ['charset= "utf-8"', true],
    ['charset =utf8', true],
    ['charset = utf-16', false],
  ] as const)('reads whitespace around the = of %s (answers %s)', (parameter, accepted) => {
    expect(isJsonContentType(`application/json; ${parameter}`)).toBe(accepted);
  });
});
