import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildRunFinishedEvent, envelopeOf } from '../../../../functions/delivery/run-finished-event.ts';
import {
  buildWebhookRequest,
  renderWebhookRequestForTerminal,
  verifyWebhookSignature,
} from '../../../../functions/delivery/webhook-request.ts';
import { finishedRun } from '../../../support/finished-runs.ts';
import { resultEventValidator } from '../../../support/result-event-schema.ts';

const NOW = Date.parse('2026-11-30T06:10:31Z');
const KEY = 'whsec-test-key';
const META = { id: 'evt-1', time: '2026-11-30T06:10:31Z', account: '123456789012', region: 'eu-west-1' };

async function request() {
  const envelope = envelopeOf(buildRunFinishedEvent(await finishedRun('PUBLISHED')), META);
  return { envelope, request: buildWebhookRequest(envelope, 'itsm', KEY, NOW) };
}

describe('buildWebhookRequest', () => {
  it('sends the schema-valid event as its body, signed as v1=HMAC-SHA256(key, "v1:" + timestamp + ":" + body)', async () => {
    const { request: sent } = await request();
    expect(resultEventValidator()(JSON.parse(sent.body))).toBe(true);
    const timestamp = sent.headers['x-diagnosis-timestamp'];
    expect(timestamp).toBe(String(Math.floor(NOW / 1_000)));
    const expected = createHmac('sha256', KEY).update(`v1:${timestamp}:${sent.body}`).digest('hex');
    expect(sent.headers['x-diagnosis-signature']).toBe(`v1=${expected}`);
    expect(sent.headers['x-diagnosis-delivery-id']).toBe('run-published:itsm');
    expect(sent.headers['content-type']).toBe('application/json');
  });
});

describe('verifyWebhookSignature', () => {
  const check = async (change: Partial<Parameters<typeof verifyWebhookSignature>[0]> = {}) => {
    const { request: sent } = await request();
    return verifyWebhookSignature({
      body: sent.body,
      timestamp: sent.headers['x-diagnosis-timestamp'],
      signature: sent.headers['x-diagnosis-signature'],
      keys: [KEY],
      nowMs: NOW + 1_000,
      ...change,
    });
  };

  it('accepts the request as signed, and with a rotated key list that still holds the key', async () => {
    expect(await check()).toEqual({ ok: true });
    expect(await check({ keys: ['old-key', KEY] })).toEqual({ ok: true });
  });

  it('refuses a changed body, a wrong key, a forged or missing signature, and a replay after five minutes', async () => {
    const { request: sent } = await request();
    expect(await check({ body: `${sent.body} ` })).toEqual({ ok: false, code: 'SIGNATURE_INVALID' });
    expect(await check({ keys: ['another-key'] })).toEqual({ ok: false, code: 'SIGNATURE_INVALID' });
    expect(await check({ signature: `v1=${'0'.repeat(64)}` })).toEqual({ ok: false, code: 'SIGNATURE_INVALID' });
    expect(await check({ signature: 'v1=abc' })).toEqual({ ok: false, code: 'SIGNATURE_INVALID' });
    expect(await check({ signature: undefined })).toEqual({ ok: false, code: 'SIGNATURE_MISSING' });
    expect(await check({ timestamp: '1e9' })).toEqual({ ok: false, code: 'SIGNATURE_INVALID' });
    expect(await check({ nowMs: NOW + 301_000 })).toEqual({ ok: false, code: 'SIGNATURE_STALE' });
    // The timestamp is signed: moving it forward to dodge the window breaks the signature.
    expect(await check({ timestamp: String(Math.floor(NOW / 1_000) + 1), nowMs: NOW })).toEqual({
      ok: false,
      code: 'SIGNATURE_INVALID',
    });
  });
});

describe('renderWebhookRequestForTerminal', () => {
  it('shows the headers and the body, never the signing key', async () => {
    const { request: sent } = await request();
    const text = renderWebhookRequestForTerminal('https://itsm.example.com/hook', sent);
    expect(text.startsWith('POST https://itsm.example.com/hook\n')).toBe(true);
    expect(text).toContain('x-diagnosis-signature: v1=');
    expect(text).not.toContain(KEY);
  });
});
