import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { findOrInstallAlertmanager, startAlertmanager } from '../../support/alertmanager.ts';
import { runBin, type ServingBin, startServeBin } from '../../support/cli-process.ts';

const endpoint = inject('dynamodbEndpoint');
const tableName = `serve-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const TOKEN = 'am-token-0123456789abcdef0123';
const OPERATOR = 'arn:aws:iam::000000000000:user/local-operator';
const OUTSIDER = 'arn:aws:sts::000000000000:assumed-role/other-team/bob';
const QUESTION = 'E1001 的订单从 14:05 开始大量失败，为什么？';
let dataDir: string;
let serve: ServingBin;
let url = '';
let stderrMatches: ServingBin['stderrMatches'];

/** The fields of the answers these tests read. */
interface Answer {
  runId?: string;
  status?: string;
  links?: unknown;
  message?: string;
  enterpriseId?: string;
  error?: { code?: string; message?: string };
  trigger?: { source?: string } | null;
  window?: unknown;
}

/** A request as curl sends it: no Origin, Host naming the address. */
async function call(method: string, path: string, options: { body?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    json: text === '' ? null : (JSON.parse(text) as Answer),
  };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-serve-'));
  serve = await startServeBin(['--scripted-model', '--port', '0'], {
    DIAGNOSIS_LOCAL_DATA: dataDir,
    DYNAMODB_ENDPOINT: endpoint,
    DIAGNOSIS_TABLE_NAME: tableName,
    ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
    // The local principal may use E1001; another principal no enterprise at all.
    TENANT_ACCESS: JSON.stringify([{ principal: OPERATOR, enterprises: ['E1001'] }]),
  });
  url = serve.url;
  stderrMatches = serve.stderrMatches;
});

afterAll(async () => {
  // NOTE: Ctrl-C stops the server cleanly: it waits for the runs it started, then exits 0.
  if (serve !== undefined) expect(await serve.stop()).toBe(0);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('diagnosis serve (a child process, called over HTTP)', () => {
  it('says on start how the caller identity is set, and lists the deployed routes', () => {
    const stderr = serve.stderr();
    expect(stderr).toContain(`every IAM route's caller is ${OPERATOR}`);
    expect(stderr).toContain('X-Diagnosis-Local-Principal header, loopback only');
    expect(stderr).toContain('TENANT_ACCESS: 1 rule(s)');
    for (const route of [
      'POST /diagnoses',
      'GET /runs/{runId}',
      'GET /runs/{runId}/audit',
      'GET /runs/{runId}/reasoning',
      'GET /runs/{runId}/reveal',
      'POST /runs/{runId}/cancel',
      'POST /runs/{runId}/feedback',
      'POST /triggers/{source}',
    ]) {
      expect(stderr).toContain(`  ${route} `);
    }
  });

  it('starts a run with POST /diagnoses and reads it, its audit, reasoning and reveal, rates and cancels it', async () => {
    const started = await call('POST', '/diagnoses?wait=25', {
      body: JSON.stringify({ enterpriseId: 'E1001', sessionId: 'serve-1', query: QUESTION }),
    });
    expect(started.status).toBe(200);
    expect(started.json?.status).toBe('PUBLISHED');
    const runId = String(started.json?.runId);
    expect(started.json?.links).toEqual({
      run: `/runs/${runId}`,
      audit: `/runs/${runId}/audit`,
      cancel: `/runs/${runId}/cancel`,
    });

    const run = await call('GET', `/runs/${runId}`);
    expect(run.status).toBe(200);
    expect(run.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(run.json).toMatchObject({ runId, enterpriseId: 'E1001', status: 'PUBLISHED', query: QUESTION });

    const audit = await call('GET', `/runs/${runId}/audit`);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.json)).toContain('query_logs');
    expect((await call('GET', `/runs/${runId}/reasoning`)).status).toBe(200);
    expect((await call('GET', `/runs/${runId}/reveal`)).status).toBe(200);

    const rated = await call('POST', `/runs/${runId}/feedback`, { body: JSON.stringify({ verdict: 'CORRECT' }) });
    expect(rated.status).toBe(201);
    // The rating names the local principal: the caller the authorizer context named.
    expect(JSON.stringify((await call('GET', `/runs/${runId}`)).json)).toContain(OPERATOR);

    // An ended run is left as it is: 200 with its status.
    const cancelled = await call('POST', `/runs/${runId}/cancel`);
    expect(cancelled.status).toBe(200);
  });

  it('matches TENANT_ACCESS against the principal a loopback request names in the header', async () => {
    const started = await call('POST', '/diagnoses', {
      body: JSON.stringify({ enterpriseId: 'E1001', sessionId: 'serve-2', query: QUESTION }),
      headers: { 'x-diagnosis-local-principal': OUTSIDER },
    });
    expect(started.status).toBe(403);
    expect(started.json?.error?.code).toBe('FORBIDDEN_TENANT');
    const mine = await call('POST', '/diagnoses?wait=25', {
      body: JSON.stringify({ enterpriseId: 'E1001', sessionId: 'serve-3', query: QUESTION }),
    });
    // Another tenant's run answers exactly like a missing one.
    const foreign = await call('GET', `/runs/${String(mine.json?.runId)}`, {
      headers: { 'x-diagnosis-local-principal': OUTSIDER },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json?.error?.code).toBe('RUN_NOT_FOUND');
  });

  it('answers what API Gateway answers itself: no route, a refused identity, a body over 10 MB', async () => {
    expect(await call('GET', '/diagnoses')).toMatchObject({ status: 404, json: { message: 'Not Found' } });
    expect(await call('GET', '/runs')).toMatchObject({ status: 404, json: { message: 'Not Found' } });
    const badPrincipal = await call('GET', '/runs/01M8WTHQ5JSTP8JMT5R0BWQS81', {
      headers: { 'x-diagnosis-local-principal': 'arn:aws:iam::*:user/x' },
    });
    expect(badPrincipal).toMatchObject({ status: 403, json: { message: 'Forbidden' } });
    const large = await call('POST', '/diagnoses', { body: 'x'.repeat(10 * 1024 * 1024 + 1) });
    expect(large).toMatchObject({ status: 413, json: { message: 'Request Entity Too Large' } });
  });

  it('refuses a web page: a request naming another host (DNS rebinding) or carrying an Origin', async () => {
    // NOTE: fetch keeps its own Host header; node:http sends the one given, as a rebound browser would.
    const rebinding = await new Promise<{ status: number; body: string }>((resolveAnswer, reject) => {
      const request = httpRequest(
        `${url}/runs/01M8WTHQ5JSTP8JMT5R0BWQS81`,
        { headers: { host: 'attacker.example:80' } },
        (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => {
            body += chunk.toString();
          });
          response.on('end', () => resolveAnswer({ status: response.statusCode ?? 0, body }));
        },
      );
      request.on('error', reject);
      request.end();
    });
    expect(rebinding).toEqual({ status: 403, body: '{"message":"Forbidden"}' });
    const page = await call('POST', '/diagnoses', {
      body: JSON.stringify({ enterpriseId: 'E1001', sessionId: 'serve-4', query: QUESTION }),
      headers: { origin: 'https://attacker.example' },
    });
    expect(page).toMatchObject({ status: 403, json: { message: 'Forbidden' } });
  });

  it('passes the webhook route through without IAM: the function checks the sender’s own token', async () => {
    const before = serve.stderr().length;
    const refused = await call('POST', '/triggers/alertmanager', {
      body: '{}',
      headers: { authorization: 'Bearer wrong-token-0123456789' },
    });
    expect(refused.status).toBe(401);
    expect(refused.json?.error?.code).toBe('WEBHOOK_UNAUTHENTICATED');
    // The access log names the function and the status (and is written before the next test reads it).
    await stderrMatches(/POST \/triggers\/alertmanager → 401 TriggerWebhook/, before);
  });

  const found = findOrInstallAlertmanager();
  if ('missing' in found) {
    const message = `serve's Alertmanager test SKIPPED: ${found.missing} (apt-get install prometheus-alertmanager)`;
    if (process.env.CI !== undefined) throw new Error(`${message}; CI installs it (.ci/run)`);
    console.warn(message);
  }
  it.skipIf(!('binary' in found))('starts a run when a real Alertmanager notifies it, readable over HTTP', async () => {
    const before = serve.stderr().length;
    const running = await startAlertmanager(
      'binary' in found ? found.binary : '',
      [
        'route:',
        '  receiver: diagnosis',
        "  group_by: ['alertname']",
        '  group_wait: 1s',
        'receivers:',
        '  - name: diagnosis',
        '    webhook_configs:',
        `      - url: ${JSON.stringify(`${url}/triggers/alertmanager`)}`,
        '        send_resolved: true',
        '        http_config:',
        '          authorization:',
        '            type: Bearer',
        `            credentials: ${TOKEN}`,
        '',
      ].join('\n'),
    );
    try {
      await running.postAlerts([
        {
          labels: { alertname: 'PaymentGatewayErrors', team: 'payments', severity: 'critical' },
          annotations: { summary: 'payment-gateway 5xx above 5%' },
        },
      ]);
      // Alertmanager's own notification, answered by the real webhook function through serve.
      const answered = await stderrMatches(/POST \/triggers\/alertmanager → (\d{3}) TriggerWebhook/, before);
      expect(answered[1], serve.stderr().slice(before)).toBe('202');
    } finally {
      await running.stop();
    }
    const documents = DynamoDBDocumentClient.from(
      new DynamoDBClient({
        endpoint,
        region: 'local',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    );
    const items = await documents.send(new ScanCommand({ TableName: tableName }));
    const triggered = (items.Items ?? []).filter(
      (item) => String(item.pk).startsWith('RUN#') && JSON.stringify(item).includes('alertmanager'),
    );
    expect(triggered.length).toBe(1);
    const runId = String(triggered[0]?.pk).slice('RUN#'.length);
    const run = await call('GET', `/runs/${runId}`);
    expect(run.status).toBe(200);
    expect(run.json?.enterpriseId).toBe('E1001');
    expect(run.json?.trigger?.source).toBe('alertmanager');
    expect(run.json?.window).not.toBeNull();
    documents.destroy();
  });
});

describe('diagnosis serve refusals (before anything starts)', () => {
  const run = (args: string[]) =>
    runBin(['serve', '--scripted-model', ...args], { DIAGNOSIS_LOCAL_DATA: dataDir, DYNAMODB_ENDPOINT: endpoint });

  it('refuses a non-loopback address without --allow-non-loopback, exit 64', async () => {
    const refused = await run(['--host', '0.0.0.0']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--host 0.0.0.0 is not loopback');
    expect(refused.stderr).toContain('--allow-non-loopback');
  });

  it('refuses a principal that is not an IAM ARN, exit 64', async () => {
    const refused = await run(['--principal', 'arn:aws:iam::*:user/x']);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('--principal is an IAM ARN');
  });
});
