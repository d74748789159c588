import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_FLUSH_RESERVE_MS, startE2eWorld } from '../../support/e2e-world.ts';
import { httpEvent, lambdaContext } from '../../support/lambda-events.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
beforeAll(async () => {
  world = await startE2eWorld();
});
afterAll(async () => {
  await world?.cleanup();
});

const valid = { runId: 'bad-event-run', sessionId: 's-1', enterpriseId: 'E1001', query: 'E1001 订单失败' };
const body = (value: unknown) => JSON.stringify(value);

describe('the Diagnose Lambda refuses bad events and writes nothing', () => {
  const httpCases: [string, Parameters<typeof httpEvent>[0], number, string][] = [
    ['no IAM authorizer', { body: body(valid), iam: false }, 403, 'FORBIDDEN'],
    ['an empty body', { body: '' }, 400, 'BODY_MISSING'],
    ['no body', { body: undefined }, 400, 'BODY_MISSING'],
    ['a non-JSON body', { body: '{"query": "订单' }, 400, 'BODY_NOT_JSON'],
    [
      'a base64 body',
      { body: Buffer.from(body(valid)).toString('base64'), isBase64Encoded: true },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'a form body',
      { body: 'query=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    ['an array body', { body: body([valid]) }, 400, 'INVALID_REQUEST'],
    ['a JSON string body', { body: body('diagnose E1001') }, 400, 'INVALID_REQUEST'],
    ['a missing query', { body: body({ ...valid, query: undefined }) }, 400, 'INVALID_REQUEST'],
    ['a missing enterprise', { body: body({ ...valid, enterpriseId: undefined }) }, 400, 'INVALID_REQUEST'],
    ['a query of the wrong type', { body: body({ ...valid, query: 42 }) }, 400, 'INVALID_REQUEST'],
    ['continueSession of the wrong type', { body: body({ ...valid, continueSession: 'yes' }) }, 400, 'INVALID_REQUEST'],
    ['an extra field', { body: body({ ...valid, model: 'gpt-x' }) }, 400, 'INVALID_REQUEST'],
    [
      'an enterprise id with injection',
      { body: body({ ...valid, enterpriseId: "E1001' OR '1'='1" }) },
      400,
      'INVALID_REQUEST',
    ],
    ['a run id with a slash', { body: body({ ...valid, runId: '../RUN#x' }) }, 400, 'INVALID_REQUEST'],
    ['a run id of the wrong type', { body: body({ ...valid, runId: 42 }) }, 400, 'INVALID_REQUEST'],
    ['a run id as an object', { body: body({ ...valid, runId: { S: 'x' } }) }, 400, 'INVALID_REQUEST'],
    ...[
      ['129 characters', 's'.repeat(129)],
      ['a key separator', 's#TENANT#E2002'],
      ['a slash', 's/../x'],
      ['a space', 's 1'],
      ['a non-ASCII letter', 'sé'],
      ['nothing', ''],
      ['a number', 7],
    ].map(([label, sessionId]): [string, Parameters<typeof httpEvent>[0], number, string] => [
      `a session id with ${label}`,
      { body: body({ ...valid, sessionId }) },
      400,
      'INVALID_REQUEST',
    ]),
    ...[
      ['65 characters', `E${'1'.repeat(64)}`],
      ['a fullwidth E1001', 'Ｅ１００１'],
      ['an accented letter', 'É1001'],
      ['nothing', ''],
      ['a number', 1001],
      ['an array', ['E1001']],
    ].map(([label, enterpriseId]): [string, Parameters<typeof httpEvent>[0], number, string] => [
      `an enterprise id with ${label}`,
      { body: body({ ...valid, enterpriseId }) },
      400,
      'INVALID_REQUEST',
    ]),
    ['a blank query', { body: body({ ...valid, query: ' \n\t ' }) }, 400, 'QUERY_BLANK'],
    ['an oversized query', { body: body({ ...valid, query: '订'.repeat(1_400) }) }, 400, 'QUERY_TOO_LARGE'],
    [
      'a query with invalid UTF-16',
      { body: '{"runId":"r1","sessionId":"s","enterpriseId":"E1001","query":"\\ud800 订单"}' },
      400,
      'QUERY_INVALID',
    ],
    ['a body over 64 KiB', { body: body({ ...valid, query: 'x'.repeat(70_000) }) }, 413, 'BODY_TOO_LARGE'],
    ['a GET', { method: 'GET', body: body(valid) }, 405, 'METHOD_NOT_ALLOWED'],
  ];

  it.each(httpCases)('answers %s over HTTP with the right status and code', async (_label, options, status, code) => {
    const before = (await world.items()).length;
    const requests = world.server.requests.length;
    const response = (await world.handlers.startDiagnosis(httpEvent(options), lambdaContext(60_000))) as {
      statusCode: number;
      body: string;
    };
    expect(response.statusCode).toBe(status);
    expect(JSON.parse(response.body)).toMatchObject({ error: { code, message: expect.any(String) } });
    expect(response.body).not.toContain("OR '1'='1");
    expect((await world.items()).length).toBe(before);
    expect(world.server.requests.length).toBe(requests);
  });

  it('throws DEADLINE_TOO_SHORT to the workflow when too little time is left, and writes nothing', async () => {
    const failure = await world.handlers.diagnose(valid, lambdaContext(E2E_FLUSH_RESERVE_MS + 200)).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure).toMatchObject({
      name: 'DiagnosisInputError',
      message: expect.stringMatching(/^DEADLINE_TOO_SHORT: /),
    });
    expect(await world.items()).toEqual([]);
  });

  it('refuses an HTTP event sent to the Diagnose function itself (its only way in is the workflow)', async () => {
    const response = (await world.handlers.diagnose(httpEvent({ body: body(valid) }), lambdaContext(60_000))) as {
      statusCode: number;
      body: string;
    };
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe('MALFORMED_EVENT');
    expect(await world.items()).toEqual([]);
  });

  const stepFunctionsCases: [string, unknown][] = [
    ['null', null],
    ['an array', [valid]],
    ['a string', 'diagnose'],
    ['a missing runId', { ...valid, runId: undefined }],
    ['an extra field', { ...valid, retry: 1 }],
    ['a number query', { ...valid, query: 1 }],
    ['a blank query', { ...valid, query: '   ' }],
    ['an oversized query', { ...valid, query: 'q'.repeat(5_000) }],
    ['an invalid UTF-16 query', { ...valid, query: '\udc00' }],
    // The execution a run is bound to: only an execution ARN, bounded, is taken.
    ['an execution that is not an execution ARN', { ...valid, executionArn: 'run-1' }],
    [
      'a state machine ARN for an execution',
      { ...valid, executionArn: 'arn:aws:states:eu-west-1:123456789012:stateMachine:wf' },
    ],
    [
      'an oversized execution ARN',
      { ...valid, executionArn: `arn:aws:states:eu-west-1:123456789012:execution:${'x'.repeat(500)}` },
    ],
    ['a number as the execution', { ...valid, executionArn: 42 }],
  ];

  it.each(stepFunctionsCases)(
    'throws DiagnosisInputError for a Step Functions payload with %s',
    async (_label, payload) => {
      const before = (await world.items()).length;
      const failure = await world.handlers.diagnose(payload, lambdaContext(60_000)).then(
        () => undefined,
        (error: unknown) => error as Error,
      );
      expect(failure?.name).toBe('DiagnosisInputError');
      expect(failure?.message).toMatch(/^[A-Z_]+: /);
      expect((await world.items()).length).toBe(before);
    },
  );
});
