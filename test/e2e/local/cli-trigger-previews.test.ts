/**
 * `diagnosis trigger` shows what each destination would receive (issue 21): the Slack message built by the deployed
 * delivery code, rendered for the terminal, in `--json`, and posted with `--post-slack` to a URL (here a loopback
 * receiver) whose path — a Slack webhook's secret — is never printed. A URL it must not post to is refused before
 * anything runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SlackMessage } from '../../../functions/delivery/slack-message.ts';
import { blockKitViolations } from '../../support/block-kit.ts';
import { runInProcess } from '../../support/cli-in-process.ts';
import { schemaErrors } from '../../support/json-schemas.ts';
import { type LoopbackReceiver, startLoopbackReceiver } from '../../support/loopback-receiver.ts';

const endpoint = inject('dynamodbEndpoint');
const ALARM = 'examples/triggers/cloudwatch-alarm.json';
const SECRET_PATH = '/services/T0000/B0000/hook-path-secret-4f1c';
let dataDir: string;
let receiver: LoopbackReceiver;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-previews-'));
  receiver = await startLoopbackReceiver();
});
afterAll(async () => {
  await receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Each test its own table: the same alarm would otherwise attach to the incident's open run. */
const diagnosis = (args: string[]) =>
  runInProcess(args, {
    DIAGNOSIS_LOCAL_DATA: dataDir,
    DYNAMODB_ENDPOINT: endpoint,
    DIAGNOSIS_TABLE_NAME: `cli-previews-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
  });

describe('diagnosis trigger: delivery previews', () => {
  it('prints the Slack message a destination would receive and posts it, never printing the URL’s path', async () => {
    const finished = await diagnosis(['trigger', ALARM, '--scripted-model', '--post-slack', receiver.url(SECRET_PATH)]);
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stderr).toContain('deploy/default.json names no destination for E1001');
    expect(finished.stdout).toContain('── slack destination "slack-preview": Slack message ──');
    expect(finished.stdout).toContain('# Diagnosed · E1001');
    expect(finished.stdout).toContain('AI-generated, review before acting.');
    expect(finished.stderr).toContain(`posted the Slack message to ${new URL(receiver.url('/')).origin}: HTTP 200`);
    expect(finished.stdout + finished.stderr).not.toContain('hook-path-secret-4f1c');
    const posted = receiver.received.filter((request) => request.path === SECRET_PATH);
    expect(posted).toHaveLength(1);
    expect(posted[0]?.headers['content-type']).toBe('application/json');
    const message = JSON.parse(posted[0]?.body ?? '') as SlackMessage;
    expect(blockKitViolations(message)).toEqual([]);
    expect(message.blocks[0]).toMatchObject({ type: 'header' });
  });

  it('gives the previews in --json, without their terminal text, and what --post-slack posted', async () => {
    const path = `${SECRET_PATH}-json`;
    const finished = await diagnosis([
      'trigger',
      ALARM,
      '--scripted-model',
      '--json',
      '--post-slack',
      receiver.url(path),
    ]);
    expect(finished.code, finished.stderr).toBe(0);
    const output = JSON.parse(finished.stdout) as { deliveries: Record<string, unknown>[]; posted: unknown };
    expect(schemaErrors('trigger-report', output)).toEqual([]);
    expect(output.deliveries).toHaveLength(1);
    expect(output.deliveries[0]).toMatchObject({ type: 'slack', destinationId: 'slack-preview' });
    expect(output.deliveries[0]).not.toHaveProperty('text');
    expect(blockKitViolations(output.deliveries[0]?.payload as SlackMessage)).toEqual([]);
    // What was posted is the previewed payload; the output names the receiver's origin, never the URL's path.
    expect(output.posted).toEqual({ origin: new URL(receiver.url('/')).origin, status: 200 });
    expect(finished.stdout).not.toContain('hook-path-secret-4f1c');
    const posted = receiver.received.filter((request) => request.path === path);
    expect(posted.map((request) => JSON.parse(request.body))).toEqual([output.deliveries[0]?.payload]);
  });

  it('fails when the Slack URL refuses the message, after showing the run', async () => {
    receiver.answer('/refuses', { status: 500 });
    const finished = await diagnosis(['trigger', ALARM, '--scripted-model', '--post-slack', receiver.url('/refuses')]);
    expect(finished.code).toBe(1);
    expect(finished.stdout).toContain('── slack destination "slack-preview"');
    expect(finished.stderr).toContain('refused the Slack message: HTTP 500');
  });

  it.each([
    ['plain http to another machine', 'http://hooks.example.com/services/x'],
    ['credentials in the URL', 'https://user:pass@hooks.slack.com/services/x'],
    ['not a URL', 'hooks.slack.com/services/x'],
    ['another scheme', 'file:///etc/passwd'],
  ])('refuses --post-slack with %s before anything runs (exit 64)', async (_what, url) => {
    const before = receiver.received.length;
    const finished = await diagnosis(['trigger', ALARM, '--scripted-model', '--post-slack', url]);
    expect(finished.code).toBe(64);
    expect(finished.stderr).toContain('--post-slack takes');
    expect(finished.stderr).not.toContain('run ');
    expect(finished.stderr).not.toContain('pass');
    expect(receiver.received.length).toBe(before);
  });
});
