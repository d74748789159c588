import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  SLACK_MAX_AGE_SECONDS,
  SLACK_MAX_BODY_BYTES,
  SLACK_MAX_FUTURE_SECONDS,
  SLACK_REFUSALS,
  signSlackRequest,
  verifySlackRequest,
} from '../../../../functions/slack/verify-slack-request.ts';

// Slack's own worked example (api.slack.com/authentication/verifying-requests-from-slack): secret, timestamp, body
// and the signature Slack documents for them.
const DOC_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const DOC_TIMESTAMP = '1531420618';
const DOC_BODY =
  'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const DOC_SIGNATURE = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';
const DOC_NOW_MS = Number(DOC_TIMESTAMP) * 1_000;

const bytes = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

function check(
  overrides: Partial<{ signature: string | undefined; timestamp: string | undefined; body: Uint8Array }> = {},
  nowMs = DOC_NOW_MS,
  secret = DOC_SECRET,
) {
  return verifySlackRequest(
    { signature: DOC_SIGNATURE, timestamp: DOC_TIMESTAMP, body: bytes(DOC_BODY), ...overrides },
    secret,
    nowMs,
  );
}

/** A request signed correctly by `secret` over `body` at `timestamp`. */
function signed(body: Uint8Array, timestamp: string, secret = DOC_SECRET) {
  return { signature: signSlackRequest(body, timestamp, secret), timestamp, body };
}

describe('signSlackRequest', () => {
  it("gives Slack's documented signature for Slack's documented example", () => {
    expect(signSlackRequest(DOC_BODY, DOC_TIMESTAMP, DOC_SECRET)).toBe(DOC_SIGNATURE);
    expect(signSlackRequest(bytes(DOC_BODY), DOC_TIMESTAMP, DOC_SECRET)).toBe(DOC_SIGNATURE);
  });
});

describe('verifySlackRequest', () => {
  it("accepts Slack's documented example at its own time", () => {
    expect(check()).toEqual({ ok: true });
  });

  it('states each refusal with its HTTP status', () => {
    expect(SLACK_REFUSALS).toEqual({
      SLACK_BODY_TOO_LARGE: 413,
      SLACK_SIGNATURE_MISSING: 401,
      SLACK_SIGNATURE_MALFORMED: 401,
      SLACK_TIMESTAMP_MALFORMED: 401,
      SLACK_STALE: 401,
      SLACK_FROM_THE_FUTURE: 401,
      SLACK_BAD_SIGNATURE: 401,
    });
    expect(SLACK_MAX_BODY_BYTES).toBe(262_144);
    expect(SLACK_MAX_AGE_SECONDS).toBe(300);
    expect(SLACK_MAX_FUTURE_SECONDS).toBe(60);
  });

  describe('size', () => {
    it('accepts a correctly signed body of exactly the largest size', () => {
      const body = new Uint8Array(SLACK_MAX_BODY_BYTES).fill(0x61);
      expect(verifySlackRequest(signed(body, DOC_TIMESTAMP), DOC_SECRET, DOC_NOW_MS)).toEqual({ ok: true });
    });

    it('refuses a body one byte larger, even correctly signed', () => {
      const body = new Uint8Array(SLACK_MAX_BODY_BYTES + 1).fill(0x61);
      expect(verifySlackRequest(signed(body, DOC_TIMESTAMP), DOC_SECRET, DOC_NOW_MS)).toEqual({
        ok: false,
        code: 'SLACK_BODY_TOO_LARGE',
        status: 413,
      });
    });

    it('refuses an oversized body before looking at its headers', () => {
      const body = new Uint8Array(SLACK_MAX_BODY_BYTES + 1);
      expect(check({ body, signature: undefined, timestamp: undefined })).toEqual({
        ok: false,
        code: 'SLACK_BODY_TOO_LARGE',
        status: 413,
      });
    });
  });

  describe('headers', () => {
    it('refuses a request without a signature', () => {
      expect(check({ signature: undefined })).toEqual({ ok: false, code: 'SLACK_SIGNATURE_MISSING', status: 401 });
    });

    it('refuses a request without a timestamp', () => {
      expect(check({ timestamp: undefined })).toEqual({ ok: false, code: 'SLACK_SIGNATURE_MISSING', status: 401 });
    });

    it.each([
      ['another version', DOC_SIGNATURE.replace('v0=', 'v1=')],
      ['no version', DOC_SIGNATURE.slice(3)],
      ['upper-case hex', DOC_SIGNATURE.toUpperCase().replace('V0=', 'v0=')],
      ['one hex digit short', DOC_SIGNATURE.slice(0, -1)],
      ['one hex digit more', `${DOC_SIGNATURE}0`],
      ['a leading space', ` ${DOC_SIGNATURE}`],
      ['a trailing newline', `${DOC_SIGNATURE}\n`],
      ['two signatures', `${DOC_SIGNATURE},${DOC_SIGNATURE}`],
      ['an empty value', ''],
      ['a non-hex digit', `${DOC_SIGNATURE.slice(0, -1)}g`],
    ])('refuses a signature with %s as malformed', (_, signature) => {
      expect(check({ signature })).toEqual({ ok: false, code: 'SLACK_SIGNATURE_MALFORMED', status: 401 });
    });

    it.each([
      ['empty', ''],
      ['zero', '0'],
      ['negative', `-${DOC_TIMESTAMP}`],
      ['fractional', `${DOC_TIMESTAMP}.5`],
      ['a leading zero', `0${DOC_TIMESTAMP}`],
      ['a leading space', ` ${DOC_TIMESTAMP}`],
      ['a trailing newline', `${DOC_TIMESTAMP}\n`],
      ['in milliseconds beyond 12 digits', `${DOC_TIMESTAMP}000`],
      ['in exponent form', '1.531420618e9'],
      ['hexadecimal', '0x5b475cca'],
    ])('refuses a timestamp that is %s as malformed', (_, timestamp) => {
      expect(check({ timestamp })).toEqual({ ok: false, code: 'SLACK_TIMESTAMP_MALFORMED', status: 401 });
    });

    it('accepts a 12-digit timestamp when it is current and signed', () => {
      const timestamp = '100000000000';
      const body = bytes('x');
      expect(verifySlackRequest(signed(body, timestamp), DOC_SECRET, Number(timestamp) * 1_000)).toEqual({ ok: true });
    });
  });

  describe('age', () => {
    it('accepts a request exactly five minutes old, to the last millisecond of that second', () => {
      expect(check({}, (Number(DOC_TIMESTAMP) + SLACK_MAX_AGE_SECONDS) * 1_000 + 999)).toEqual({ ok: true });
    });

    it('refuses a request five minutes and one second old', () => {
      expect(check({}, (Number(DOC_TIMESTAMP) + SLACK_MAX_AGE_SECONDS + 1) * 1_000)).toEqual({
        ok: false,
        code: 'SLACK_STALE',
        status: 401,
      });
    });

    it('refuses a request a day old', () => {
      expect(check({}, DOC_NOW_MS + 86_400_000)).toEqual({ ok: false, code: 'SLACK_STALE', status: 401 });
    });

    it('accepts a timestamp exactly the tolerated skew ahead of our clock', () => {
      expect(check({}, (Number(DOC_TIMESTAMP) - SLACK_MAX_FUTURE_SECONDS) * 1_000)).toEqual({ ok: true });
    });

    it('refuses a timestamp one second further in the future', () => {
      expect(check({}, (Number(DOC_TIMESTAMP) - SLACK_MAX_FUTURE_SECONDS - 1) * 1_000)).toEqual({
        ok: false,
        code: 'SLACK_FROM_THE_FUTURE',
        status: 401,
      });
    });

    it('refuses a stale request before checking its signature', () => {
      const stale = (Number(DOC_TIMESTAMP) + SLACK_MAX_AGE_SECONDS + 1) * 1_000;
      expect(check({ signature: `v0=${'0'.repeat(64)}` }, stale)).toEqual({
        ok: false,
        code: 'SLACK_STALE',
        status: 401,
      });
    });
  });

  describe('signature', () => {
    it('refuses a signature of another body', () => {
      expect(check({ body: bytes(`${DOC_BODY}&x=1`) })).toEqual({
        ok: false,
        code: 'SLACK_BAD_SIGNATURE',
        status: 401,
      });
    });

    it('refuses a signature made with another secret', () => {
      expect(check({}, DOC_NOW_MS, `${DOC_SECRET}x`)).toEqual({
        ok: false,
        code: 'SLACK_BAD_SIGNATURE',
        status: 401,
      });
    });

    it('refuses a signature made at another timestamp', () => {
      const other = String(Number(DOC_TIMESTAMP) + 1);
      expect(check({ timestamp: other })).toEqual({ ok: false, code: 'SLACK_BAD_SIGNATURE', status: 401 });
    });

    it.each([3, 30, 66])('refuses the signature with its hex digit %i changed', (index) => {
      const digit = DOC_SIGNATURE[index] === '0' ? '1' : '0';
      const signature = DOC_SIGNATURE.slice(0, index) + digit + DOC_SIGNATURE.slice(index + 1);
      expect(check({ signature })).toEqual({ ok: false, code: 'SLACK_BAD_SIGNATURE', status: 401 });
    });

    it('refuses a signature over the body without the version prefix (`{timestamp}:{body}`)', () => {
      const hex = createHmac('sha256', DOC_SECRET).update(`${DOC_TIMESTAMP}:${DOC_BODY}`).digest('hex');
      expect(check({ signature: `v0=${hex}` })).toEqual({ ok: false, code: 'SLACK_BAD_SIGNATURE', status: 401 });
    });

    it('verifies the raw bytes, not a re-encoded text (a body that is not valid UTF-8)', () => {
      const body = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
      const request = signed(body, DOC_TIMESTAMP);
      expect(verifySlackRequest(request, DOC_SECRET, DOC_NOW_MS)).toEqual({ ok: true });
      const reencoded = bytes(Buffer.from(body).toString('utf8'));
      expect(verifySlackRequest({ ...request, body: reencoded }, DOC_SECRET, DOC_NOW_MS)).toEqual({
        ok: false,
        code: 'SLACK_BAD_SIGNATURE',
        status: 401,
      });
    });

    it('accepts an empty body when it is signed', () => {
      const body = new Uint8Array(0);
      expect(verifySlackRequest(signed(body, DOC_TIMESTAMP), DOC_SECRET, DOC_NOW_MS)).toEqual({ ok: true });
    });
  });
});
