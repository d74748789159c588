/**
 * The delivery's reveal (issue 22): a run's result delivered with the real values behind its pseudonyms to an
 * enterprise that opted in, masked to every other. The run, its Draft and its sealed pseudonym map are the real
 * in-memory store's (the map written by the masking session and the audit writer as a run writes them); the
 * destinations' payloads are the real builders', captured by a fetch and an SNS client that answer 200.
 */
import type { PublishCommand } from '@aws-sdk/client-sns';
import {
  createMaskingSession,
  DEVELOPMENT_MASKING_SECRET,
  type DiagnosisDraft,
  loadCustomRules,
  type MaskingSession,
} from '@diagnosis/core';
import { createMemoryStores, type MemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { deliverRunResult } from '../../../../functions/delivery/deliver-run-result.ts';
import { createDestinationSender } from '../../../../functions/delivery/destination-senders.ts';
import type { ResolvedDestination } from '../../../../functions/delivery/destinations.ts';
import { createMemoryDeliveryStore } from '../../../../functions/delivery/memory-delivery-store.ts';
import { type DeliveryReveal, revealForDestination } from '../../../../functions/delivery/reveal-run-result.ts';
import { buildRunFinishedEvent } from '../../../../functions/delivery/run-finished-event.ts';
import type { SlackMessage } from '../../../../functions/delivery/slack-message.ts';
import { sealNewPseudonyms } from '../../../../packages/core/src/tools/masking/pseudonym-map.ts';
import { deliveredEnvelope } from '../../../support/delivery-events.ts';
import { outcomeOf } from '../../../support/finished-runs.ts';
import { supportedDraft, T0 } from '../../../support/run-fixtures.ts';

const PHONE = '13812345678';
const EMAIL = 'li.wei@example.cn';
/** A value a deployment's pattern pseudonymised that is hostile in Slack: a mention, a link and an ampersand. */
const REMARK = 'remark=<!channel>&<@U024BE7LH>|<https://evil.example|click>';
const RULES = await loadCustomRules([{ kind: 'remark', pattern: 'remark=[^ ]+' }]);

interface Captured {
  url: string;
  body: string;
}

/** A run of `enterpriseId` whose published Draft speaks of masked customer data, and its map in the store. */
async function maskedRun(stores: MemoryStores, runId: string, enterpriseId: string, seal = true) {
  const session: MaskingSession = createMaskingSession(
    { mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET, rules: RULES },
    runId,
  );
  const conclusion = session.maskText(
    `客户 ${PHONE}（${EMAIL}）下单失败，备注 ${REMARK} ，Authorization: Bearer abcdefghijklmnopqrstuvwx`,
  );
  const base = supportedDraft(['call_logs_1']);
  const draft: DiagnosisDraft = {
    ...base,
    conclusion,
    analysis: base.analysis.map((item) => ({
      ...item,
      statement: session.maskText(`${item.statement}，涉及 ${PHONE}`),
    })),
  };
  let sequence = 0;
  if (seal) {
    for (const batch of sealNewPseudonyms(session, { runId, sessionId: 's-1' }, () => ++sequence)) {
      await stores.onPseudonyms(batch);
    }
    await stores.flush();
  }
  await stores.queueRun({ runId, sessionId: 's-1', enterpriseId, query: '下单失败', continueSession: false });
  await stores.claimQueuedRun(runId, T0 + 60_000);
  await stores.completeRun(runId, outcomeOf('PUBLISHED', draft));
  const run = await stores.getRun(runId);
  if (run === null || run.status === 'QUEUED' || run.status === 'RUNNING') throw new Error('not ended');
  return { ...run, status: run.status };
}

function destinationsFor(enterpriseId: string): ResolvedDestination[] {
  return [
    { id: 'oncall', type: 'slack', url: `https://hooks.slack.example/${enterpriseId}` },
    { id: 'itsm', type: 'webhook', url: `https://itsm.example/${enterpriseId}`, signingKey: 'k' },
    { id: 'ops-mail', type: 'sns', topicArn: `arn:aws:sns:eu-west-1:123456789012:${enterpriseId}` },
  ];
}

function deliverer(stores: MemoryStores, reveal: DeliveryReveal | undefined) {
  const captured: Captured[] = [];
  const published: string[] = [];
  const send = createDestinationSender({
    sns: {
      send: async (command: PublishCommand) => {
        published.push(String(command.input.Message));
        return {};
      },
    } as never,
    timeoutMs: 1_000,
    now: () => T0,
    fetch: async (url, init) => {
      captured.push({ url: String(url), body: String(init?.body) });
      return new Response('ok', { status: 200 });
    },
  });
  const deps = {
    runs: stores,
    deliveries: createMemoryDeliveryStore(),
    destinations: new Map([
      ['E1001', destinationsFor('E1001')],
      ['E2002', destinationsFor('E2002')],
    ]),
    send,
    now: () => T0,
    leaseMs: 1_000,
    ...(reveal === undefined ? {} : { reveal }),
  };
  return {
    captured,
    published,
    deliver: (body: string) => deliverRunResult(body, { receiveCount: 1, maxReceives: 5 }, deps),
  };
}

const revealFor = (stores: MemoryStores, enterprises: string[], secret = DEVELOPMENT_MASKING_SECRET) => ({
  enterprises: new Set(enterprises),
  pseudonyms: stores,
  secret,
});

const slackText = (message: SlackMessage) => JSON.stringify(message.blocks);

describe('deliverRunResult with a reveal', () => {
  it('delivers the real values to an enterprise that opted in, escaped for Slack, with secrets still redacted', async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const run = await maskedRun(stores, 'run-reveal-a', 'E1001');
    const { captured, published, deliver } = deliverer(stores, revealFor(stores, ['E1001']));
    const report = await deliver(JSON.stringify(deliveredEnvelope(run)));
    expect(report).toMatchObject({ kind: 'ATTEMPTED', reveal: 'REVEALED', retry: false });

    const slack = JSON.parse(captured.find((request) => request.url.includes('slack'))?.body ?? '{}') as SlackMessage;
    const text = slackText(slack);
    expect(text).toContain(PHONE);
    expect(text).toContain(EMAIL);
    // The hostile value arrives as text: no live mention, link or entity of its own.
    expect(text).toContain('remark=&lt;!channel&gt;&amp;&lt;@U024BE7LH&gt;|&lt;https://evil.example|click&gt;');
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<@U024BE7LH>');
    expect(text).not.toMatch(/&lt;(?:phone|email|remark):/);
    expect(text).toContain('[REDACTED:bearer]');
    expect(text).not.toContain('abcdefghijklmnopqrstuvwx');

    const hook = JSON.parse(captured.find((request) => request.url.includes('itsm'))?.body ?? '{}');
    expect(hook.detail.conclusion).toContain(PHONE);
    expect(hook.detail.conclusion).toContain(REMARK);
    expect(hook.detail.findings[0].statement).toContain(PHONE);
    expect(published.join('')).toContain(EMAIL);
  });

  it('delivers only pseudonyms to an enterprise that did not opt in', async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const run = await maskedRun(stores, 'run-reveal-b', 'E2002');
    const { captured, published, deliver } = deliverer(stores, revealFor(stores, ['E1001']));
    expect(await deliver(JSON.stringify(deliveredEnvelope(run)))).toMatchObject({ reveal: 'MASKED', retry: false });
    const everything = [...captured.map((request) => request.body), ...published].join('\n');
    expect(captured).toHaveLength(2);
    for (const value of [PHONE, EMAIL, 'U024BE7LH']) expect(everything).not.toContain(value);
    expect(everything).toMatch(/<phone:[a-z2-7]{5,13}>/);
  });

  it('delivers masked, never failing, when the map is missing or sealed with another secret', async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const sealed = await maskedRun(stores, 'run-reveal-c', 'E1001');
    const unsealed = await maskedRun(stores, 'run-reveal-d', 'E1001', false);
    const other = deliverer(stores, revealFor(stores, ['E1001'], 'another-deployments-masking-secret-0123456789'));
    expect(await other.deliver(JSON.stringify(deliveredEnvelope(sealed)))).toMatchObject({
      reveal: 'PSEUDONYM_MAP_UNREADABLE',
      retry: false,
    });
    const missing = deliverer(stores, revealFor(stores, ['E1001']));
    expect(await missing.deliver(JSON.stringify(deliveredEnvelope(unsealed)))).toMatchObject({
      reveal: 'PSEUDONYM_MAP_INCOMPLETE',
      retry: false,
    });
    const failing = deliverer(stores, {
      enterprises: new Set(['E1001']),
      pseudonyms: {
        listPseudonyms: async () => {
          throw new Error(`table down ${PHONE}`);
        },
      },
      secret: DEVELOPMENT_MASKING_SECRET,
    });
    expect(await failing.deliver(JSON.stringify(deliveredEnvelope(sealed)))).toMatchObject({
      reveal: 'PSEUDONYM_MAP_UNREADABLE',
      retry: false,
    });
    const everything = [other, missing, failing]
      .flatMap((attempt) => [...attempt.captured.map((request) => request.body), ...attempt.published])
      .join('\n');
    expect(everything).not.toContain(PHONE);
    expect(everything).toMatch(/<phone:[a-z2-7]{5,13}>/);
  });
});

describe('revealForDestination', () => {
  it('never reveals a run of one enterprise for a destination of another, even one that opted in', async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const run = await maskedRun(stores, 'run-reveal-e', 'E1001');
    const detail = buildRunFinishedEvent(run).detail;
    const reveal = revealFor(stores, ['E1001', 'E2002']);
    const foreign = await revealForDestination(detail, 'E2002', reveal);
    expect(foreign.outcome).toBe('MASKED');
    expect(JSON.stringify(foreign.detail)).not.toContain(PHONE);
    const own = await revealForDestination(detail, 'E1001', reveal);
    expect(own.outcome).toBe('REVEALED');
    expect(own.detail.conclusion).toContain(PHONE);
  });
});

describe('revealForDestination with a map that lacks a pseudonym the result shows (issue 32, item 9)', () => {
  it('delivers the whole result masked, never revealing the pseudonyms the map holds', async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const run = await maskedRun(stores, 'run-reveal-partial', 'E1001', false);
    // The map holds the phone's entry only (the same run and key give the same pseudonym); the e-mail's is missing.
    const partial = createMaskingSession(
      { mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET, rules: RULES },
      'run-reveal-partial',
    );
    partial.maskText(PHONE);
    let sequence = 0;
    for (const batch of sealNewPseudonyms(partial, { runId: 'run-reveal-partial', sessionId: 's-1' }, () => ++sequence))
      await stores.onPseudonyms(batch);
    await stores.flush();
    const detail = buildRunFinishedEvent(run).detail;
    const revealed = await revealForDestination(detail, 'E1001', revealFor(stores, ['E1001']));
    expect(revealed.outcome).toBe('PSEUDONYM_MAP_INCOMPLETE');
    expect(revealed.detail).toEqual(detail);
    expect(JSON.stringify(revealed.detail)).not.toContain(PHONE);

    const { captured, published, deliver } = deliverer(stores, revealFor(stores, ['E1001']));
    expect(await deliver(JSON.stringify(deliveredEnvelope(run)))).toMatchObject({
      reveal: 'PSEUDONYM_MAP_INCOMPLETE',
      retry: false,
    });
    const everything = [...captured.map((request) => request.body), ...published].join('\n');
    expect(everything).not.toContain(PHONE);
    expect(everything).toMatch(/<phone:[a-z2-7]{5,13}>/);
  });
});

describe('revealForDestination without a masking secret (a deployed function without MaskingKey)', () => {
  it('delivers masked and reads no map, never opening it with the public development key', async () => {
    const stores = createMemoryStores({ now: () => T0 });
    const run = await maskedRun(stores, 'run-reveal-nokey', 'E1001');
    let listed = 0;
    const reveal: DeliveryReveal = {
      enterprises: new Set(['E1001']),
      pseudonyms: {
        listPseudonyms: async (runId, page) => {
          listed += 1;
          return stores.listPseudonyms(runId, page);
        },
      },
      secret: null,
    };
    const detail = buildRunFinishedEvent(run).detail;
    const revealed = await revealForDestination(detail, 'E1001', reveal);
    expect(revealed).toEqual({ detail, outcome: 'PSEUDONYM_MAP_UNREADABLE' });
    expect(listed).toBe(0);
  });
});
