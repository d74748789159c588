/**
 * `diagnosis change <event.json>` run in process: every example of examples/changes/ through the real change
 * functions (signed by the command as its sender signs), recorded once on the test run's DynamoDB Local in its
 * enterprise's partition; a repeat is a duplicate; a stale change and an ambiguous body are refused.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDynamoChangeStore } from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';
import { localDynamoClient } from '../../support/dynamodb.ts';

const endpoint = inject('dynamodbEndpoint');
const tableName = `cli-change-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-change-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const diagnosis = (args: string[]) =>
  runInProcess(args, { DIAGNOSIS_LOCAL_DATA: dataDir, DYNAMODB_ENDPOINT: endpoint, DIAGNOSIS_TABLE_NAME: tableName });

const EXAMPLES: [string, string[], string][] = [
  ['argocd-sync.json', [], 'payment-gateway'],
  ['flux-kustomization.json', [], 'payment-gateway'],
  ['github-actions-deploy.json', ['--source', 'gha-e1001'], 'order-service'],
  ['unleash-flag.json', ['--source', 'flags-e1001'], 'order-service'],
  ['github-deployment-status.json', [], 'order-service'],
  ['cloudtrail-lambda-config.json', [], 'order-service'],
];

describe('diagnosis change', () => {
  it.each(EXAMPLES)('records %s once in its enterprise’s stream', async (file, extra, service) => {
    const finished = await diagnosis(['change', `examples/changes/${file}`, ...extra, '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    const answer = JSON.parse(finished.stdout);
    expect(answer).toMatchObject({ status: 202, outcome: 'RECORDED', changeId: expect.stringMatching(/^chg_/) });
    const client = localDynamoClient();
    try {
      const stored = await createDynamoChangeStore({ client, tableName }).list('E1001', {
        fromMs: Date.parse('2026-11-30T05:00:00Z'),
        toMs: Date.parse('2026-11-30T07:00:00Z'),
        limit: 50,
      });
      expect(stored.changes.find((change) => change.id === answer.changeId)).toMatchObject({ service });
    } finally {
      client.destroy();
    }
  });

  it('answers a repeat of the same change DUPLICATE, writing nothing', async () => {
    const finished = await diagnosis(['change', 'examples/changes/argocd-sync.json', '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(JSON.parse(finished.stdout)).toMatchObject({ status: 200, outcome: 'DUPLICATE' });
  });

  it('refuses a change that landed over an hour before it arrives, and a body several webhooks take', async () => {
    const stale = await diagnosis(['change', 'examples/changes/argocd-sync.json', '--now']);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('WEBHOOK_STALE');
    const ambiguous = await diagnosis(['change', 'examples/changes/unleash-flag.json']);
    expect(ambiguous.code).toBe(64);
    expect(ambiguous.stderr).toContain('--source');
  });
});
