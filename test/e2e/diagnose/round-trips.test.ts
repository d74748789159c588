/**
 * The DynamoDB round trips a run waits on before the model: the Diagnose Lambda end to end on DynamoDB Local behind a
 * proxy that holds every request 500 ms (a table farther away than the loopback one), every DynamoDB request this
 * process sends timed at the client (Node's HTTP client diagnostics channel), and the model server's first request
 * timed as it arrives. Requests that overlap in time are one round trip (sent together, waited on together); the ones
 * that start before the first model request are what the run waits on before its first round. NOTE: the delay is what
 * makes "sent together" show: on loopback an engine answers in a few milliseconds, and on a loaded machine the first
 * of two requests sent together could be answered before the client has sent the second.
 */

import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepSeekResponse } from '../../support/deepseek-server.ts';
import { countDynamoRequests, roundTrips } from '../../support/dynamo-round-trips.ts';
import { startDynamoDelayProxy } from '../../support/dynamodb-delay-proxy.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, lambdaContext } from '../../support/lambda-events.ts';

/** The most sequential DynamoDB round trips between the Diagnose invocation and its first model request. */
const MAX_ROUND_TRIPS_BEFORE_THE_MODEL = 3;

const TABLE_DELAY_MS = 500;

let proxy: Awaited<ReturnType<typeof startDynamoDelayProxy>>;
let world: Awaited<ReturnType<typeof startE2eWorld>>;
beforeAll(async () => {
  proxy = await startDynamoDelayProxy(TABLE_DELAY_MS);
  world = await startE2eWorld({ DYNAMODB_ENDPOINT: proxy.endpoint });
});
afterAll(async () => {
  await world?.cleanup();
  await proxy?.close();
});

const conversation = e1001ScriptedConversation();

/** One run through the Diagnose handler: the round trips it waited on before its first model request, described. */
async function tripsBeforeTheModel(payload: Record<string, unknown>) {
  let firstModelRequestAt = Infinity;
  const [first, ...rest] = structuredClone(conversation.responses) as DeepSeekResponse[];
  proxy.delay(TABLE_DELAY_MS);
  world.server.script.push(
    () => {
      firstModelRequestAt = performance.now();
      // What the run sends after its first model request is not counted: forwarded at once.
      proxy.delay(0);
      return first as DeepSeekResponse;
    },
    ...rest,
  );
  const invokedAt = performance.now();
  const { result, spans } = await countDynamoRequests(
    () => world.handlers.diagnose(payload, lambdaContext(60_000)) as Promise<DiagnosisResult>,
  );
  const trips = roundTrips(spans.filter((span) => span.start >= invokedAt && span.start < firstModelRequestAt));
  return { result, trips: trips.map((trip) => trip.map((span) => span.operation).join(' + ')) };
}

describe('the Diagnose Lambda — DynamoDB round trips before the first model request', () => {
  const session = `ops-trips-${Date.now().toString(36)}`;
  const request = (runId: string, continueSession: boolean) => ({
    runId,
    sessionId: session,
    enterpriseId: 'E1001',
    query: conversation.query,
    continueSession,
  });

  it(`waits on at most ${MAX_ROUND_TRIPS_BEFORE_THE_MODEL} round trips before its first model request`, async () => {
    const { result, trips } = await tripsBeforeTheModel(request(`${session}-1`, false));

    expect(result.status).toBe('PUBLISHED');
    expect(trips.length, trips.join(' → ')).toBeGreaterThan(0);
    expect(trips.length, trips.join(' → ')).toBeLessThanOrEqual(MAX_ROUND_TRIPS_BEFORE_THE_MODEL);
  });

  it(`waits on at most ${MAX_ROUND_TRIPS_BEFORE_THE_MODEL} when it continues the session (the previous run read)`, async () => {
    const { result, trips } = await tripsBeforeTheModel(request(`${session}-2`, true));

    expect(result.status).toBe('PUBLISHED');
    expect(trips.length, trips.join(' → ')).toBeLessThanOrEqual(MAX_ROUND_TRIPS_BEFORE_THE_MODEL);
  });
});

describe('roundTrips', () => {
  it('counts overlapping requests as one trip and a request sent after the others ended as the next', () => {
    const trips = roundTrips([
      { operation: 'PutItem', start: 0, end: 10 },
      { operation: 'Query', start: 2, end: 8 },
      { operation: 'UpdateItem', start: 10, end: 15 },
      { operation: 'GetItem', start: 20, end: 22 },
    ]);

    expect(trips.map((trip) => trip.map((span) => span.operation))).toEqual([
      ['PutItem', 'Query'],
      ['UpdateItem'],
      ['GetItem'],
    ]);
  });
});
