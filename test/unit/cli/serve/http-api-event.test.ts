import { describe, expect, it } from 'vitest';
import { buildHttpApiEvent, requestTime } from '../../../../packages/cli/src/serve/http-api-event.ts';
import { parseLocalPrincipal } from '../../../../packages/cli/src/serve/local-principal.ts';

const NOW = Date.UTC(2026, 11, 3, 2, 10, 5);
const principal = parseLocalPrincipal('arn:aws:iam::000000000000:user/local-operator');

function request(overrides: Partial<Parameters<typeof buildHttpApiEvent>[0]> = {}) {
  return {
    method: 'GET',
    target: '/runs/R1',
    rawHeaders: ['Host', '127.0.0.1:8787', 'User-Agent', 'curl/8.5.0'],
    body: Buffer.alloc(0),
    sourceIp: '127.0.0.1',
    ...overrides,
  };
}

describe('buildHttpApiEvent', () => {
  it('builds the payload 2.0 event AWS documents for an IAM route, with the IAM authorizer context', () => {
    if (principal === null) throw new Error('principal');
    const event = buildHttpApiEvent(
      request(),
      { routeKey: 'GET /runs/{runId}', pathParameters: { runId: 'R1' } },
      { iam: principal, now: NOW, domainName: '127.0.0.1:8787' },
    );
    expect(event).toEqual({
      version: '2.0',
      routeKey: 'GET /runs/{runId}',
      rawPath: '/runs/R1',
      rawQueryString: '',
      headers: { host: '127.0.0.1:8787', 'user-agent': 'curl/8.5.0' },
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        authorizer: { iam: principal },
        domainName: '127.0.0.1:8787',
        domainPrefix: '127',
        http: { method: 'GET', path: '/runs/R1', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'curl/8.5.0' },
        requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        routeKey: 'GET /runs/{runId}',
        stage: '$default',
        time: '03/Dec/2026:02:10:05 +0000',
        timeEpoch: NOW,
      },
      pathParameters: { runId: 'R1' },
      isBase64Encoded: false,
    });
  });

  it('joins repeated headers and query parameters with commas, moves cookies out of the headers', () => {
    const event = buildHttpApiEvent(
      request({
        target: '/runs/R1/audit?limit=5&limit=6&cursor=a%2Bb',
        rawHeaders: ['X-A', '1', 'x-a', '2', 'Cookie', 'a=1; b=2'],
      }),
      { routeKey: 'GET /runs/{runId}/audit', pathParameters: { runId: 'R1' } },
      { now: NOW, domainName: 'localhost' },
    );
    expect(event.headers).toEqual({ 'x-a': '1,2' });
    expect(event.cookies).toEqual(['a=1', 'b=2']);
    expect(event.rawQueryString).toBe('limit=5&limit=6&cursor=a%2Bb');
    expect(event.queryStringParameters).toEqual({ limit: '5,6', cursor: 'a+b' });
    expect(event.requestContext).not.toHaveProperty('authorizer');
  });

  it('passes a JSON body as text and any other content type base64-encoded, as API Gateway does', () => {
    const route = { routeKey: 'POST /diagnoses', pathParameters: {} };
    const text = buildHttpApiEvent(
      request({
        method: 'POST',
        rawHeaders: ['Content-Type', 'application/json; charset=utf-8'],
        body: Buffer.from('{"a":"诊断"}'),
      }),
      route,
      { now: NOW, domainName: 'localhost' },
    );
    expect(text).toMatchObject({ body: '{"a":"诊断"}', isBase64Encoded: false });
    expect(text).not.toHaveProperty('pathParameters');
    const binary = buildHttpApiEvent(
      request({
        method: 'POST',
        rawHeaders: ['Content-Type', 'application/octet-stream'],
        body: Buffer.from([0, 1, 2]),
      }),
      route,
      { now: NOW, domainName: 'localhost' },
    );
    expect(binary).toMatchObject({ body: 'AAEC', isBase64Encoded: true });
  });

  it('leaves out the headers the server keeps to itself', () => {
    const event = buildHttpApiEvent(
      request({ rawHeaders: ['X-Diagnosis-Local-Principal', 'arn:aws:iam::000000000000:user/x', 'Accept', '*/*'] }),
      { routeKey: 'GET /runs/{runId}', pathParameters: { runId: 'R1' } },
      { now: NOW, domainName: 'localhost', omitHeaders: ['x-diagnosis-local-principal'] },
    );
    expect(event.headers).toEqual({ accept: '*/*' });
  });
});

describe('requestTime', () => {
  it('writes the request time as API Gateway does', () => {
    expect(requestTime(Date.UTC(2020, 2, 12, 19, 3, 58))).toBe('12/Mar/2020:19:03:58 +0000');
  });
});
