/**
 * `diagnosis serve` exits 0 on Ctrl-C however it is started (#47): directly, through `npx diagnosis serve` and through
 * `npm run serve`. Each is started as a terminal starts a job, in a process group of its own, with a run in flight,
 * and sent one SIGINT to the whole group, as Ctrl-C sends it: npm, the shell npm runs the command in and the bin all
 * receive it, and npm forwards its own to the bin. It must wait for the run and exit 0. Before: through npx, Debian's
 * sh ended by the SIGINT after the bin had exited 0 and npm re-raised it (the terminal's 130); with a shell that
 * hands the signal on, npm's forwarded copy was taken for a second Ctrl-C and stopped serve at once (exit 130).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runBin, startBin } from '../../support/cli-process.ts';

const endpoint = inject('dynamodbEndpoint');
const tableName = `cli-serve-signals-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-serve-signals-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const environment = () => ({
  DIAGNOSIS_LOCAL_DATA: dataDir,
  DYNAMODB_ENDPOINT: endpoint,
  DIAGNOSIS_TABLE_NAME: tableName,
});

describe('diagnosis serve and Ctrl-C', () => {
  it.each([
    ['directly', ['node_modules/.bin/diagnosis', 'serve']],
    ['through npx', ['npx', 'diagnosis', 'serve']],
    ['through npm run', ['npm', 'run', '--silent', 'serve', '--']],
  ])('started %s, waits for its run and exits 0 after one SIGINT to its process group', async (label, launcher) => {
    const bin = startBin(['--scripted-model', '--port', '0'], environment(), { launcher, processGroup: true });
    const [, url] = await bin.matches('stderr', /serving the deployed API at (http:\/\/127\.0\.0\.1:\d+)/);
    const sessionId = `signals-${label.replace(/\W+/g, '-')}`;
    const started = await fetch(`${url}/diagnoses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ enterpriseId: 'E1001', sessionId, query: 'E1001 的订单从 14:05 开始大量失败，为什么？' }),
    });
    expect(started.status).toBe(202);
    const { runId } = (await started.json()) as { runId: string };
    bin.interrupt();
    const finished = await bin.done;
    expect({ code: finished.code, signal: finished.signal }, finished.stderr).toEqual({ code: 0, signal: null });
    expect(finished.stderr).toContain('stopping: no new requests; waiting for the runs this server started to end');
    const runs = await runBin(['runs', '--enterprise', 'E1001', '--session', sessionId, '--json'], environment());
    expect(JSON.parse(runs.stdout)).toMatchObject([{ runId, status: 'PUBLISHED' }]);
  });
});
