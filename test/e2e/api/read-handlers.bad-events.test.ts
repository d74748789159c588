/**
 * Malformed events to the read functions (a direct `lambda:Invoke` can send any JSON): `null` makes
 * `iamCallerOf` read a property of null, so the handler throws a bare TypeError instead of answering 403/400.
 * The Diagnose function handles the same payloads (it answers with a named DiagnosisInputError).
 */
import { describe, expect, it } from 'vitest';
import {
  createGetRunAuditHandler,
  createGetRunHandler,
  createGetRunReasoningHandler,
  createGetRunRevealHandler,
} from '../../../functions/api/run-queries.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';

const store = {
  getRun: async () => null,
  listRunRecords: async () => ({ records: [], cursor: null }),
  listReasoning: async () => ({ records: [], cursor: null }),
  listPseudonyms: async () => ({ records: [], cursor: null }),
};
const options = { ...createObservability('test'), policy: null };
const handlers = {
  getRun: createGetRunHandler(store, options),
  getRunAudit: createGetRunAuditHandler(store, options),
  getRunReasoning: createGetRunReasoningHandler(store, options),
  getRunReveal: createGetRunRevealHandler(store, { ...options, maskingSecret: 'x'.repeat(32) }),
};

describe.each(Object.entries(handlers))('%s with a payload that is not an object', (_name, handler) => {
  it.each([['null', null]])('answers %s with a 4xx response, never a thrown TypeError', async (_label, event) => {
    let outcome: unknown;
    try {
      outcome = (await handler(event as never, {} as never)).statusCode;
    } catch (error) {
      outcome = `thrown ${(error as Error).name}: ${(error as Error).message}`;
    }
    expect(outcome).toBeTypeOf('number');
    expect(outcome as number).toBeGreaterThanOrEqual(400);
    expect(outcome as number).toBeLessThan(500);
  });
});

describe('getRunReveal without a masking secret (a deployed function without MaskingKey)', () => {
  const run = { runId: 'run-1', enterpriseId: 'E1001' };
  const iam = { accountId: '111122223333', userArn: 'arn:aws:sts::111122223333:assumed-role/Ops/alice' };
  const policy = [{ principal: 'arn:aws:sts::111122223333:assumed-role/Ops/*', enterprises: ['E1001'] }];
  let listed = 0;
  const reader = {
    getRun: async (runId: string) => (runId === run.runId ? ({ ...run, status: 'PUBLISHED' } as never) : null),
    listPseudonyms: async () => {
      listed += 1;
      return { records: [], cursor: null };
    },
  };
  const handler = createGetRunRevealHandler(reader, { ...options, policy, maskingSecret: null });

  it('answers 503 MASKING_UNAVAILABLE and reads no map, never opening it with the public development key', async () => {
    const response = await handler(
      httpEvent({ method: 'GET', path: '/runs/run-1/reveal', pathParameters: { runId: 'run-1' }, iam }),
      lambdaContext(5_000),
    );
    expect(response.statusCode).toBe(503);
    expect(JSON.parse(String(response.body))).toMatchObject({ error: { code: 'MASKING_UNAVAILABLE' } });
    expect(listed).toBe(0);
  });

  it('still answers 404 for a run of another enterprise', async () => {
    const response = await handler(
      httpEvent({ method: 'GET', path: '/runs/run-2/reveal', pathParameters: { runId: 'run-2' }, iam }),
      lambdaContext(5_000),
    );
    expect(response.statusCode).toBe(404);
  });
});
