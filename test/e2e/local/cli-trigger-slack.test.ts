/**
 * `diagnosis trigger … --slack` (issue 34) on the composition `diagnosis serve` uses (local-slack-app.ts): the alarm's
 * run gets its card in the alert channel of a loopback Slack, replaced by the result with its buttons and the details
 * in its thread; a signed click is recorded and shown on the card; a follow-up question in the thread starts its own
 * run, answered there. The run ends before the command does: every Slack call is on stderr by then.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runInProcess } from '../../support/cli-in-process.ts';

const endpoint = inject('dynamodbEndpoint');
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-cli-trigger-slack-'));
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('diagnosis trigger --slack', () => {
  it('plays the card, a click and a follow-up in the thread against a loopback Slack', async () => {
    const finished = await runInProcess(
      ['trigger', 'examples/triggers/cloudwatch-alarm.json', '--scripted-model', '--slack'],
      {
        DIAGNOSIS_LOCAL_DATA: dataDir,
        DYNAMODB_ENDPOINT: endpoint,
        DIAGNOSIS_TABLE_NAME: `cli-trigger-slack-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      },
    );
    expect(finished.code, finished.stderr).toBe(0);
    const lines = finished.stderr.split('\n');
    const index = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const posted = index(/^slack ▸ chat\.postMessage #C0LOCAL000 ts \S+: Diagnosing · E1001/);
    const result = index(/^slack ▸ chat\.update #C0LOCAL000 ts \S+: Diagnosed · E1001 /);
    const details = index(/^slack ▸ chat\.postMessage #C0LOCAL000 \(thread \S+\) ts \S+: .* details/);
    const click = index(/^you ▸ click rate_correct on the card of /);
    const followUp = index(/^slack ▸ chat\.postMessage #C0LOCAL000 \(thread \S+\) ts \S+: Follow-up question · E1001/);
    expect(
      [posted, result, details, click, followUp].every((at) => at >= 0),
      finished.stderr,
    ).toBe(true);
    expect(posted < result && result < click && click < followUp).toBe(true);
    expect(finished.stderr).toMatch(
      /slack: \d+ Web API calls \(\d+ updates, 0 answered 429\) against the loopback Slack; follow-up run slack-/,
    );
  });
});
