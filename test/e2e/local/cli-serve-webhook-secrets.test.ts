/**
 * `diagnosis serve` with webhook mappings that name their own secret (docs/triggers.md, per-mapping credentials): each
 * secret is read from the variable named as the stage file names it (`WebhookServeE1001Am=…`, the name `npx sst
 * secret set` takes), as the deployed TriggerWebhook reads it from its linked SST secret. A request reaches only the
 * mappings of the credential it proved; a mapping whose secret is unset refuses its requests; a misspelt or malformed
 * secret variable is refused before anything starts (exit 78), never printing its value.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runBin, type ServingBin, startServeBin } from '../../support/cli-process.ts';

const endpoint = inject('dynamodbEndpoint');
const tableName = `serve-webhook-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const E1001_TOKEN = 'am-e1001-own-0123456789abcdef';
const SHARED_TOKEN = 'am-shared-0123456789abcdef01';
let dataDir: string;
let stageFile: string;
let serve: ServingBin;

/** The example Alertmanager notification, its team label set to `team` and its group key made unique. */
function notification(team: string): string {
  const example = JSON.parse(
    readFileSync(new URL('../../../examples/triggers/alertmanager-webhook.json', import.meta.url), 'utf8'),
  ) as { groupKey: string; commonLabels: Record<string, string>; alerts: { labels: Record<string, string> }[] };
  example.groupKey = `{}/{team="${team}"}:{alertname="X${Math.random().toString(36).slice(2, 8)}"}`;
  example.commonLabels.team = team;
  for (const alert of example.alerts) alert.labels.team = team;
  return JSON.stringify(example);
}

async function notify(token: string, team: string) {
  const response = await fetch(`${serve.url}/triggers/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: notification(team),
  });
  return {
    status: response.status,
    json: (await response.json()) as { outcome?: string; code?: string; error?: { code?: string } },
  };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-serve-webhook-'));
  stageFile = join(dataDir, 'webhook-stage.json');
  writeFileSync(
    stageFile,
    JSON.stringify({
      triggers: [
        { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'E1001', secret: 'WebhookServeE1001Am' },
        { source: 'alertmanager', labels: { team: 'search' }, enterpriseId: 'E2002', secret: 'WebhookServeE2002Am' },
        { source: 'alertmanager', labels: { team: 'shared' }, enterpriseId: 'E1001' },
      ],
    }),
  );
  serve = await startServeBin(['--scripted-model', '--port', '0', '--stage', stageFile], {
    DIAGNOSIS_LOCAL_DATA: dataDir,
    DYNAMODB_ENDPOINT: endpoint,
    DIAGNOSIS_TABLE_NAME: tableName,
    ALERTMANAGER_WEBHOOK_TOKEN: SHARED_TOKEN,
    // E1001's mapping secret under its SST name; E2002's is unset.
    WebhookServeE1001Am: E1001_TOKEN,
  });
});

afterAll(async () => {
  if (serve !== undefined) expect(await serve.stop()).toBe(0);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('diagnosis serve with mappings that name their own webhook secret', () => {
  it('says on start which mapping secrets are set and which refuse their mapping, naming no value', () => {
    const stderr = serve.stderr();
    expect(stderr).toContain('mapping secrets: WebhookServeE1001Am set; WebhookServeE2002Am unset');
    expect(stderr).not.toContain(E1001_TOKEN);
  });

  it('starts a run for the mapping whose own secret the request proves', async () => {
    expect(await notify(E1001_TOKEN, 'payments')).toMatchObject({ status: 202, json: { outcome: 'STARTED' } });
  });

  it('reaches only that mapping: the same token aimed at another mapping is ignored as unmapped', async () => {
    expect(await notify(E1001_TOKEN, 'shared')).toMatchObject({
      status: 202,
      json: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    // The shared token reaches the mappings without a secret of their own, and not those with one.
    expect(await notify(SHARED_TOKEN, 'payments')).toMatchObject({
      status: 202,
      json: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
  });

  it('refuses every request for a mapping whose secret is unset: no token reaches it', async () => {
    expect(await notify(E1001_TOKEN, 'search')).toMatchObject({
      status: 202,
      json: { outcome: 'IGNORED', code: 'UNMAPPED' },
    });
    expect(await notify('am-guess-0123456789abcdef012', 'search')).toMatchObject({
      status: 401,
      json: { error: { code: 'WEBHOOK_UNAUTHENTICATED' } },
    });
  });
});

describe('diagnosis serve: mapping secret variables refused before anything starts', () => {
  const refusal = (env: Record<string, string>) =>
    runBin(['serve', '--scripted-model', '--port', '0', '--stage', stageFile], {
      DIAGNOSIS_LOCAL_DATA: dataDir,
      DYNAMODB_ENDPOINT: endpoint,
      ...env,
    });

  it('refuses a misspelt mapping secret variable with the secret meant (exit 78), never its value', async () => {
    const refused = await refusal({
      WebhookServeE1001Am: E1001_TOKEN,
      WebhookServeE2002Amm: 'am-e2002-0123456789abcdef',
    });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain(
      'unknown setting: WebhookServeE2002Amm in the environment (did you mean WebhookServeE2002Am?)',
    );
    expect(refused.stderr).not.toContain('am-e2002-0123456789abcdef');
  });

  it('refuses a malformed mapping secret (too short for a bearer token) naming the secret, exit 78', async () => {
    const refused = await refusal({ WebhookServeE1001Am: 'k9Zq-tiny' });
    expect(refused.code).toBe(78);
    expect(refused.stderr).toContain('WebhookServeE1001Am');
    expect(refused.stderr).not.toContain('k9Zq-tiny');
  });
});
