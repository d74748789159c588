/**
 * The DynamoDB round trips each model round waits on before its request: the Diagnose Lambda end to end, its table
 * behind a proxy that holds every request 800 ms and a model that answers in 1.6 s (as a real one, slower than the
 * table). Between a round's answer and the next round's request the proxy's gate is shut: a request sent then is held
 * until that next request reaches the model server (or 10 s at the most). So a request the round does not wait on
 * cannot end before the round's request arrives, however long the round's tools take, and one it waits on holds the
 * round until the gate gives way. For every round after the first: the requests sent after the previous round's
 * answer left the model server and answered before this round's request arrived there are what the round waited on.
 */

import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepSeekResponse } from '../../support/deepseek-server.ts';
import { countDynamoRequests, roundTrips } from '../../support/dynamo-round-trips.ts';
import { startDynamoDelayProxy } from '../../support/dynamodb-delay-proxy.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';

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
      ...(structuredClone(conversation.responses) as DeepSeekResponse[]).map((response, index, all) => async () => {
        const round = { requestAt: performance.now(), answerAt: Infinity };
        rounds.push(round);
        proxy.open();
        // NOTE: a model's answer takes time; the loopback one takes a fixed 1.6 s, longer than any table request.
        await new Promise((resolve) => setTimeout(resolve, MODEL_ANSWER_MS));
        round.answerAt = performance.now();
        // Until the next round's request: the run's writes after this answer wait behind the gate.
        if (index < all.length - 1) proxy.shut();
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
