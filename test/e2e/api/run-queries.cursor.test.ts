/**
 * A forged `?cursor=` on the read routes. The cursor is decoded and checked for "same partition, one
 * string `sk`", but an `sk` that DynamoDB itself refuses as a key value (the empty string; on AWS also one over
 * 1,024 bytes, which DynamoDB Local does not enforce) is sent as ExclusiveStartKey; the ValidationException is not
 * CORRUPT_ITEM, so the handler rethrows it (API Gateway: 500, and the raw SDK message lands in the Lambda log).
 */
import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireText } from '../../support/deepseek-server.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const runId = `rt-cursor-${Date.now().toString(36)}`;
beforeAll(async () => {
  world = await startE2eWorld();
  world.server.script.push(wireText(JSON.stringify(noConclusionDraft())));
  const result = (await world.handlers.diagnose(
    { runId, sessionId: 's', enterpriseId: 'E1001', query: '订单失败' },
    lambdaContext(60_000),
  )) as DiagnosisResult;
  expect(result.status).toBe('PUBLISHED');
});
afterAll(async () => {
  await world?.cleanup();
});

const cursor = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');
const read = async (handler: 'getRunAudit' | 'getRunReasoning', queryStringParameters: Record<string, string>) => {
  const event = httpEvent({
    method: 'GET',
    path: `/runs/${runId}/audit`,
    pathParameters: { runId },
    queryStringParameters,
  });
  try {
    const response = (await world.handlers[handler](event, lambdaContext(10_000))) as {
      statusCode: number;
      body: string;
    };
    return { status: response.statusCode, code: JSON.parse(response.body).error?.code ?? null };
  } catch (error) {
    return { status: 'THROWN', code: (error as Error).name };
  }
};

describe('forged cursors that DynamoDB refuses as a key', () => {
  it.each([
    ['an empty sk (audit)', 'getRunAudit', { pk: `RUN#${runId}`, sk: '' }],
    ['an empty sk (reasoning)', 'getRunReasoning', { pk: `REASONING#${runId}`, sk: '' }],
  ] as const)('answers %s with 400 INVALID_CURSOR, not a thrown error / 500', async (_label, handler, key) => {
    const encoded = cursor(key);
    expect(encoded.length).toBeLessThanOrEqual(2_048);
    expect(await read(handler, { cursor: encoded })).toEqual({ status: 400, code: 'INVALID_CURSOR' });
  });
});
