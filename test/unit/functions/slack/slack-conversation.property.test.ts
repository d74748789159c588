/**
 * The tenant binding of the Slack conversation, as a property (fast-check, fixed seed): whatever a button's value or
 * a message's text names — another enterprise, another run, another session, another card's ts — a rating is
 * recorded only on the card the click was on, only when that card is the clicked channel's enterprise's and the
 * button names that card's own run; a run is only ever started for the channel's enterprise; a follow-up only in a
 * card's own thread, in that card's session. Memory stores (the same conditions as the DynamoDB adapters).
 */
import { DEVELOPMENT_MASKING_SECRET, FEEDBACK_VERDICTS } from '@diagnosis/core';
import { createMemoryFeedbackStore, createMemoryPastIncidentStore, createMemoryRunStore } from '@diagnosis/core/store';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRating } from '../../../../functions/ratings/rating.ts';
import { UNBOUNDED } from '../../../../functions/slack/advance-card.ts';
import { createMemoryCardStore } from '../../../../functions/slack/memory-card-store.ts';
import type { SlackApi } from '../../../../functions/slack/slack-api.ts';
import { handleSlackWork } from '../../../../functions/slack/slack-conversation.ts';
import { resolveSlackApps } from '../../../../functions/slack/slack-settings.ts';
import type { SlackWork } from '../../../../functions/slack/slack-work.ts';
import { outcomeOf } from '../../../support/finished-runs.ts';
import { recordingWorkflow } from '../../../support/recording-workflow.ts';

const T0 = Date.parse('2026-12-03T02:00:00.000Z');
const TEAM = 'T0SHARED01';
// Two enterprises' apps in one workspace (a shared Slack), one channel each.
const apps = resolveSlackApps(
  [
    {
      id: 'e1001',
      enterpriseId: 'E1001',
      teamId: TEAM,
      channels: ['C0AAAA0001'],
      botTokenSecret: 'SlackE1001Bot',
      signingSecretSecret: 'SlackE1001Signing',
    },
    {
      id: 'e2002',
      enterpriseId: 'E2002',
      teamId: TEAM,
      channels: ['C0BBBB0002'],
      botTokenSecret: 'SlackE2002Bot',
      signingSecretSecret: 'SlackE2002Signing',
    },
  ],
  (name) => (name.endsWith('Bot') ? `xoxb-${name.toLowerCase()}-0123456789` : `${name}-signing-0123456789`),
);
const CHANNEL = { e1001: 'C0AAAA0001', e2002: 'C0BBBB0002' } as const;
const ENTERPRISE = { e1001: 'E1001', e2002: 'E2002' } as const;

async function world() {
  let now = T0;
  const runs = createMemoryRunStore({ now: () => now });
  const feedback = createMemoryFeedbackStore();
  const cards = createMemoryCardStore();
  const recorded = recordingWorkflow();
  const posted: { channel: string; threadTs: string | undefined }[] = [];
  let sequence = 0;
  const api: SlackApi = {
    async postMessage(request) {
      sequence += 1;
      posted.push({ channel: request.channel, threadTs: request.threadTs });
      return { ok: true, ts: `1796018000.${String(sequence).padStart(6, '0')}` };
    },
    updateMessage: async () => ({ ok: true }),
    openView: async () => ({ ok: true }),
  };
  // One ended, posted card per app: run, session, ts.
  const existing: Record<'e1001' | 'e2002', { runId: string; sessionId: string; ts: string }> = {} as never;
  for (const appId of ['e1001', 'e2002'] as const) {
    const runId = `run-${appId}`;
    const sessionId = `session-${appId}`;
    await runs.queueRun({ runId, sessionId, enterpriseId: ENTERPRISE[appId], query: 'q', continueSession: false });
    now += 1_000;
    await runs.claimQueuedRun(runId, now + 60_000);
    await runs.completeRun(runId, outcomeOf('PUBLISHED'));
    const lease = await cards.claimCard(
      {
        runId,
        appId,
        teamId: TEAM,
        channelId: CHANNEL[appId],
        enterpriseId: ENTERPRISE[appId],
        sessionId,
        threadTs: null,
        query: 'q',
        startedBy: 'cloudwatch',
        requesterId: null,
        followUp: false,
      },
      now,
      15_000,
    );
    if (lease === null) throw new Error('card not claimed');
    const ts = `1796000000.00000${appId === 'e1001' ? 1 : 2}`;
    await cards.recordPosted(lease, ts, now);
    existing[appId] = { runId, sessionId, ts };
  }
  const deps = {
    apps,
    slackOf: () => api,
    cards,
    runs,
    feedback,
    start: { store: runs, workflow: recorded.workflow },
    rate: createRating({
      feedback,
      masking: { secret: DEVELOPMENT_MASKING_SECRET, mode: 'identifiers', pseudonyms: runs },
      memory: { incidents: createMemoryPastIncidentStore(), retentionDays: 730 },
      now: () => now,
    }),
    now: () => now,
    slackTimeoutMs: 5_000,
  };
  return { deps, runs, feedback, recorded, existing, posted };
}

const appId = fc.constantFrom('e1001' as const, 'e2002' as const);
/** Everything a hostile value may name: ids of both tenants, their runs, sessions, card ts, and noise. */
const named = fc.oneof(
  fc.constantFrom('E1001', 'E2002', 'run-e1001', 'run-e2002', 'session-e1001', 'session-e2002'),
  fc.constantFrom('1796000000.000001', '1796000000.000002', '<!channel>', '<@U0ADMIN01>', '<https://x.example|x>'),
  fc.string({ maxLength: 40 }),
);

const rating = fc.record({
  kind: fc.constant('rating' as const),
  app: appId,
  channelOf: appId,
  tsOf: appId,
  claimed: fc.oneof(named, fc.constantFrom('run-e1001', 'run-e2002')),
  verdict: fc.constantFrom(...FEEDBACK_VERDICTS),
  note: fc.option(named, { nil: null }),
  user: fc.constantFrom('U0PERSON01', 'U0PERSON02'),
});
const mention = fc.record({
  kind: fc.constant('mention' as const),
  app: appId,
  channelOf: appId,
  threadOf: fc.option(appId, { nil: null }),
  text: fc.tuple(named, named).map(([a, b]) => `please look at ${a} for ${b}`),
  event: fc.integer({ min: 1, max: 1_000_000 }),
});

describe('handleSlackWork (tenant binding)', () => {
  it('never rates, starts or continues anything but what the channel mapping and the card allow', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(rating, mention), { minLength: 1, maxLength: 12 }), async (steps) => {
        const { deps, runs, feedback, recorded, existing, posted } = await world();
        for (const step of steps) {
          const channelId = CHANNEL[step.channelOf];
          let work: SlackWork;
          if (step.kind === 'rating') {
            work = {
              kind: 'rating',
              appId: step.app,
              teamId: TEAM,
              channelId,
              messageTs: existing[step.tsOf].ts,
              userId: step.user,
              verdict: step.verdict,
              claimedRunId: step.claimed,
              rootCause: null,
              note: step.note,
            };
          } else {
            work = {
              kind: 'mention',
              appId: step.app,
              teamId: TEAM,
              channelId,
              userId: 'U0PERSON01',
              eventId: `Ev0${step.event}`,
              ts: `1796018999.${String(step.event).padStart(6, '0')}`,
              threadTs: step.threadOf === null ? null : existing[step.threadOf].ts,
              text: step.text,
            };
          }
          const outcome = await handleSlackWork(work, deps, UNBOUNDED);
          const mapped = step.app === step.channelOf;
          if (step.kind === 'rating') {
            const allowed = mapped && step.tsOf === step.app && step.claimed === existing[step.app].runId;
            if (!allowed) expect(outcome.outcome).toBe('IGNORED');
          } else if (!mapped || (step.threadOf !== null && step.threadOf !== step.app)) {
            expect(outcome.outcome).toBe('IGNORED');
          }
        }
        // Ratings: only on each card's own run, by its own channel (checked against every stored entry).
        for (const app of ['e1001', 'e2002'] as const) {
          for (const entry of await feedback.listFeedback(existing[app].runId)) {
            expect(entry.enterpriseId).toBe(ENTERPRISE[app]);
          }
        }
        // Runs: every run started is the channel's enterprise's; a follow-up is in that enterprise's card's session.
        for (const payload of recorded.payloads) {
          const run = await runs.getRun(payload.runId);
          expect(run).not.toBeNull();
          const owner = payload.enterpriseId === 'E1001' ? 'e1001' : 'e2002';
          expect(['E1001', 'E2002']).toContain(payload.enterpriseId);
          if (payload.continueSession) expect(payload.sessionId).toBe(existing[owner].sessionId);
          else expect(payload.sessionId).not.toMatch(/^session-/);
        }
        // Messages: only ever in the channel of the app that handled them.
        for (const message of posted) expect(Object.values(CHANNEL)).toContain(message.channel);
      }),
      { seed: 34_034, numRuns: 150 },
    );
  });

  it('starts no run for a reply in one enterprise’s channel to a card of another enterprise’s run', async () => {
    const { deps, recorded, existing } = await world();
    const outcome = await handleSlackWork(
      {
        kind: 'mention',
        appId: 'e1001',
        teamId: TEAM,
        channelId: CHANNEL.e1001,
        userId: 'U0PERSON01',
        eventId: 'Ev0FORWARD1',
        ts: '1796018999.000001',
        threadTs: existing.e2002.ts,
        text: 'and the database?',
      },
      deps,
      UNBOUNDED,
    );
    expect(outcome).toEqual({ outcome: 'IGNORED', code: 'NOT_A_CARD_THREAD' });
    expect(recorded.payloads).toEqual([]);
  });

  it('rates a card only with its own run named, from its own channel', async () => {
    const { deps, feedback, existing } = await world();
    const base = {
      kind: 'rating' as const,
      appId: 'e1001',
      teamId: TEAM,
      channelId: CHANNEL.e1001,
      messageTs: existing.e1001.ts,
      userId: 'U0PERSON01',
      verdict: 'WRONG' as const,
      rootCause: null,
      note: null,
    };
    expect(await handleSlackWork({ ...base, claimedRunId: 'run-e2002' }, deps, UNBOUNDED)).toEqual({
      outcome: 'IGNORED',
      code: 'RUN_MISMATCH',
    });
    expect(
      await handleSlackWork({ ...base, messageTs: existing.e2002.ts, claimedRunId: 'run-e2002' }, deps, UNBOUNDED),
    ).toEqual({
      outcome: 'IGNORED',
      code: 'NOT_A_CARD',
    });
    expect(await handleSlackWork({ ...base, claimedRunId: 'run-e1001' }, deps, UNBOUNDED)).toMatchObject({
      outcome: 'RATED',
      runId: 'run-e1001',
      created: true,
    });
    expect((await feedback.listFeedback('run-e1001')).map((entry) => entry.caller)).toEqual([
      `slack:${TEAM}:U0PERSON01`,
    ]);
    expect(await feedback.listFeedback('run-e2002')).toEqual([]);
  });
});
