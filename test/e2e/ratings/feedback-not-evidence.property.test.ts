/**
 * Feedback is never evidence: whatever a responder writes in a verdict on a run, a later run — a follow-up in the
 * same session, whose previous turn is that very run — never sends it to the model or to the SemanticGuard's judge,
 * but as a past incident (issue 35): the stated cause of a run rated CORRECT or PARTIALLY_CORRECT, inside a lookup hit
 * marked `source: "past_incident"`, a lead the EvidenceGuard never lets a finding rest on alone.
 * Through the real handlers (Diagnose, RunFeedback), DynamoDB Local and the loopback model server, which records
 * every request body.
 */
import type { DiagnosisResult } from '@diagnosis/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const ALICE = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice' };
const conversation = e1001ScriptedConversation();
let world: Awaited<ReturnType<typeof startE2eWorld>>;
let counter = 0;

beforeAll(async () => {
  world = await startE2eWorld({ SEMANTIC_GUARD: 'enforce' });
});
afterAll(async () => {
  await world?.cleanup();
});

async function diagnose(sessionId: string, continueSession: boolean): Promise<string> {
  counter += 1;
  const runId = `not-evidence-${Date.now().toString(36)}-${counter}`;
  world.server.script.push(...structuredClone(conversation.responses));
  world.server.judgeScript.push(...structuredClone(conversation.judgeResponses));
  const result = (await world.handlers.diagnose(
    { runId, sessionId, enterpriseId: 'E1001', query: conversation.query, continueSession },
    lambdaContext(60_000),
  )) as DiagnosisResult;
  expect(result.status).toBe('PUBLISHED');
  return runId;
}

/** Text a responder might write: a unique marker, then anything the route accepts (it refuses control characters). */
const feedbackText = (marker: string) =>
  fc
    .string({ unit: 'grapheme', maxLength: 200 })
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters the route refuses.
    .map((text) => `${marker} ${text.replace(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, '')}`.trim());

/**
 * The value with every object marked `source: "past_incident"` replaced by null, JSON texts inside it (a tool
 * message's content, the judge's prompt) walked too: what a model was sent outside past-incident hits.
 */
function withoutPastIncidents(value: unknown): unknown {
  if (typeof value === 'string') {
    if (!/^\s*[[{]/.test(value)) return value;
    try {
      return JSON.stringify(withoutPastIncidents(JSON.parse(value)));
    } catch {
      return value;
    }
  }
  if (Array.isArray(value)) return value.map(withoutPastIncidents);
  if (typeof value === 'object' && value !== null) {
    if ((value as { source?: unknown }).source === 'past_incident') return null;
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, withoutPastIncidents(entry)]));
  }
  return value;
}

describe('feedback is not evidence', () => {
  it('shows the judge a lookup’s runbook hits for its id, never the past incident that came beside them', async () => {
    const rated = await diagnose(`s-runbook-only-${counter}`, false);
    const response = (await world.handlers.runFeedback(
      httpEvent({ pathParameters: { runId: rated }, body: JSON.stringify({ verdict: 'CORRECT' }), iam: ALICE }),
      lambdaContext(5_000),
    )) as { statusCode: number };
    expect(response.statusCode).toBe(201);
    const requests = world.server.requests.length;
    const judged = world.server.judgeRequests.length;
    // The demo's Draft cites its lookup by the lookup's id, and no past incident by its own.
    await diagnose(`s-runbook-only-${counter}`, false);
    expect(JSON.stringify(world.server.requests.slice(requests))).toContain(`past-incident:${rated}`);
    const evidence = JSON.stringify(
      world.server.judgeRequests.slice(judged).map((body) => (body.messages as unknown[] | undefined)?.at(-1)),
    );
    expect(evidence).toContain('订单服务下单失败排查');
    expect(evidence).not.toContain('past_incident');
  }, 120_000);

  it('never reaches the model or the judge of a later run but as a marked past incident, even one that continues from the rated run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('CORRECT', 'PARTIALLY_CORRECT', 'WRONG', 'UNHELPFUL'),
        feedbackText('ROOT-CAUSE-MARKER-7Q'),
        feedbackText('NOTE-MARKER-3Z'),
        async (verdict, rootCause, note) => {
          const sessionId = `s-not-evidence-${counter}`;
          const rated = await diagnose(sessionId, false);
          const response = (await world.handlers.runFeedback(
            httpEvent({
              pathParameters: { runId: rated },
              body: JSON.stringify({ verdict, rootCause, note }),
              iam: ALICE,
            }),
            lambdaContext(5_000),
          )) as { statusCode: number };
          expect(response.statusCode).toBe(201);
          const requests = world.server.requests.length;
          const judged = world.server.judgeRequests.length;
          await diagnose(sessionId, true);
          const bodies = [...world.server.requests.slice(requests), ...world.server.judgeRequests.slice(judged)];
          const sent = JSON.stringify(bodies);
          // Issue 35: a run rated CORRECT or PARTIALLY_CORRECT is a past incident of its enterprise, and its stated
          // cause reaches a later run's model, but only inside a lookup hit marked as a past incident (a lead);
          // outside such hits, and for any other verdict anywhere, it never does. The note never does.
          const unmarked = JSON.stringify(withoutPastIncidents(bodies));
          const leads = verdict === 'CORRECT' || verdict === 'PARTIALLY_CORRECT';
          if (!leads) expect(sent).not.toContain(`past-incident:${rated}`);
          expect(world.server.requests.length).toBeGreaterThan(requests);
          expect(world.server.judgeRequests.length).toBeGreaterThan(judged);
          // The follow-up did read the rated run: its conclusion is in the previous turn the model was given.
          expect(sent).toContain('payment-gateway');
          for (const text of ['ROOT-CAUSE-MARKER-7Q', rootCause]) {
            expect(unmarked).not.toContain(JSON.stringify(text).slice(1, -1));
          }
          for (const text of ['NOTE-MARKER-3Z', note]) expect(sent).not.toContain(JSON.stringify(text).slice(1, -1));
        },
      ),
      { numRuns: 6 },
    );
  }, 240_000);
});
