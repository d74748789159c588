/**
 * The DynamoDB round trips each model round waits on before its request: the Diagnose Lambda end to end, its table
 * behind a proxy that holds every request 800 ms (so a request the round waits on shows in its timing, and one it does
 * not wait on is still in flight when the round's request leaves) and a model that answers in 1.6 s (as a real one,
 * slower than the table). For every round after the first: the requests sent after the previous round's answer left
 * the model server and answered before this round's request arrived there are what the round waited on.
 */

import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepSeekResponse } from '../../support/deepseek-server.ts';
import { countDynamoRequests, roundTrips } from '../../support/dynamo-round-trips.ts';
import { startDynamoDelayProxy } from '../../support/dynamodb-delay-proxy.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';

/** Longer than any round's tools take here, so a request a round does not wait on cannot end before it moves on. */
const TABLE_DELAY_MS = 800;
const MODEL_ANSWER_MS = 1_600;

let proxy: Awaited<ReturnType<typeof startDynamoDelayProxy>>;
let world: Awaited<ReturnType<typeof startE2eWorld>>;
beforeAll(async () => {
  proxy = await startDynamoDelayProxy(TABLE_DELAY_MS);
  // NOTE: the past incidents `lookup_knowledge` reads are evidence from the table, a tool's own wait: left out, so
  // what is counted is what the round itself waits on. The cancel poll at the product's default interval.
  world = await startE2eWorld({
    DYNAMODB_ENDPOINT: proxy.endpoint,
    PAST_INCIDENTS: 'off',
    DIAGNOSIS_CANCEL_POLL_MS: '2000',
  });
});
afterAll(async () => {
  await world?.cleanup();
  await proxy?.close();
});

describe('the Diagnose Lambda — DynamoDB round trips in each model round', () => {
  it('waits on no DynamoDB round trip between a round’s answer and the next round’s request', async () => {
    const conversation = e1001ScriptedConversation();
    const rounds: { requestAt: number; answerAt: number }[] = [];
    world.server.script.push(
      ...(structuredClone(conversation.responses) as DeepSeekResponse[]).map((response) => async () => {
        const round = { requestAt: performance.now(), answerAt: Infinity };
        rounds.push(round);
        // NOTE: a model's answer takes time; the loopback one takes a fixed second, longer than any table request.
        await new Promise((resolve) => setTimeout(resolve, MODEL_ANSWER_MS));
        round.answerAt = performance.now();
        return response;
      }),
    );
    const runId = `ops-round-trips-${Date.now().toString(36)}`;
    const { result, spans } = await countDynamoRequests(
      () =>
        world.handlers.diagnose(
          { runId, sessionId: runId, enterpriseId: 'E1001', query: conversation.query, continueSession: false },
          lambdaContext(60_000),
        ) as Promise<DiagnosisResult>,
    );

    expect(result.status).toBe('PUBLISHED');
    expect(rounds.length).toBe(conversation.responses.length);
    const waitedOn = rounds.slice(1).map((round, index) => {
      const previousAnswerAt = rounds[index]?.answerAt ?? Infinity;
      const waited = spans.filter((span) => span.start > previousAnswerAt && span.end < round.requestAt);
      return roundTrips(waited).map((trip) => trip.map((span) => span.operation).join(' + '));
    });
    expect(waitedOn, JSON.stringify(waitedOn)).toEqual(rounds.slice(1).map(() => []));
    // NOTE: the count can fail: the table answered requests during the run, each after the proxy's delay.
    expect(spans.some((span) => span.end - span.start >= TABLE_DELAY_MS)).toBe(true);
  });
});
