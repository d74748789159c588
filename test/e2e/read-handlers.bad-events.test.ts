/**
 * Found by the red-team review: malformed events to the read functions (a direct `lambda:Invoke` can send any JSON): `null` makes
 * `iamCallerOf` read a property of null, so the handler throws a bare TypeError instead of answering 403/400.
 * The Diagnose function handles the same payloads (it answers with a named DiagnosisInputError).
 */
import { describe, expect, it } from 'vitest';
import {
  createGetRunAuditHandler,
  createGetRunHandler,
  createGetRunReasoningHandler,
  createGetRunRevealHandler,
} from '../../functions/handlers/run-queries.ts';
import { createObservability } from '../../functions/setup/observability.ts';

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
