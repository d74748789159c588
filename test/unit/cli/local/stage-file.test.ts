import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT } from '../../../../packages/cli/src/command-line.ts';
import {
  loadStageDestinations,
  loadStageSlackApps,
  loadStageTriggers,
  readStageFile,
  slackSecretNamesOfStageFiles,
  webhookSecretNamesOfStageFiles,
} from '../../../../packages/cli/src/local/stage-file.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'stage-file-'));
  mkdirSync(join(root, 'deploy'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const stageFile = (text: string) => writeFileSync(join(root, 'deploy', 'dev.json'), text);
const refusalOf = (act: () => unknown) => {
  try {
    act();
  } catch (error) {
    return error as { exitCode: number; message: string };
  }
  throw new Error('not refused');
};

describe('readStageFile', () => {
  it.each(['../package', 'default/../../etc', 'a b', '', '.hidden', 'x'.repeat(64)])(
    'refuses the stage name %j before touching the file system (exit 64)',
    (stage) => {
      expect(() => readStageFile(stage)).toThrow(expect.objectContaining({ exitCode: EXIT.USAGE }));
    },
  );

  it('refuses a stage without a file, naming only deploy/<stage>.json', () => {
    expect(() => readStageFile('no-such-stage')).toThrow('no readable deploy/no-such-stage.json');
  });
});

describe('loadStageDestinations', () => {
  it('gives an enterprise the stage names no destination for an empty list', () => {
    expect(loadStageDestinations('default', 'E1001')).toEqual([]);
  });
});

describe('readStageFile (its JSON)', () => {
  it('says a file that is not JSON is a JSON error, with the line and column, never its text (exit 78)', () => {
    stageFile('{\n  "triggers": [\n    { "source": "cloudwatch" SECRET-TEXT }\n  ]\n}\n');
    const refusal = refusalOf(() => readStageFile('dev', root));
    expect(refusal.exitCode).toBe(EXIT.CONFIG);
    expect(refusal.message).toBe('deploy/dev.json is not valid JSON: a syntax error at line 3, column 30');
    stageFile('{"triggers": [');
    expect(refusalOf(() => readStageFile('dev', root)).message).toMatch(/^deploy\/dev\.json is not valid JSON: /);
  });
});

describe('loadStageTriggers', () => {
  it('names the field of an invalid trigger mapping by its path, never its value (exit 78)', () => {
    stageFile(
      JSON.stringify({
        triggers: [
          { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001' },
          { source: 'alertmanager', labels: { team: 'payments' }, enterpriseId: 'not an id SECRET' },
        ],
      }),
    );
    const refusal = refusalOf(() => loadStageTriggers('dev', root));
    expect(refusal.exitCode).toBe(EXIT.CONFIG);
    expect(refusal.message).toMatch(/^deploy\/dev\.json: invalid trigger mapping: triggers\[1\]/);
    expect(refusal.message).not.toContain('SECRET');
  });

  it('reads the committed stage file’s mappings', () => {
    expect(loadStageTriggers('default').map((mapping) => mapping.source)).toContain('alertmanager');
  });
});

describe('loadStageSlackApps', () => {
  const app = {
    id: 'e1001',
    enterpriseId: 'E1001',
    teamId: 'T0E1001AA',
    channels: ['C0E1001AA'],
    botTokenSecret: 'SlackE1001Bot',
    signingSecretSecret: 'SlackE1001Signing',
  };

  it('gives the apps of a stage file named by its path, and none for a stage without a slack section', () => {
    const path = join(root, 'elsewhere.json');
    writeFileSync(path, JSON.stringify({ slack: { apps: [app] } }));
    expect(loadStageSlackApps(path)).toEqual([app]);
    stageFile('{}');
    expect(loadStageSlackApps('dev', root)).toEqual([]);
  });

  it('refuses an invalid app by the field at fault, never its value (exit 78)', () => {
    stageFile(JSON.stringify({ slack: { apps: [{ ...app, teamId: 'SECRET-VALUE' }] } }));
    const refusal = refusalOf(() => loadStageSlackApps('dev', root));
    expect(refusal.exitCode).toBe(EXIT.CONFIG);
    expect(refusal.message).toBe('deploy/dev.json: invalid Slack app setting: slack.apps[0].teamId');
  });

  it('refuses an alertChannel outside its channels naming its path, the app, the channel and the fix (exit 78)', () => {
    stageFile(
      JSON.stringify({
        slack: {
          apps: [
            app,
            {
              ...app,
              id: 'e2002',
              enterpriseId: 'E2002',
              teamId: 'T0E2002AA',
              botTokenSecret: 'SlackE2002Bot',
              signingSecretSecret: 'SlackE2002Signing',
              alertChannel: 'C0OTHER00',
            },
          ],
        },
      }),
    );
    const refusal = refusalOf(() => loadStageSlackApps('dev', root));
    expect(refusal.exitCode).toBe(EXIT.CONFIG);
    expect(refusal.message).toBe(
      "deploy/dev.json: invalid Slack app setting: slack.apps[1].alertChannel (app e2002's alertChannel C0OTHER00 is not one of its channels C0E1001AA: add it to channels, or name one of them)",
    );
  });

  it('says why the section is refused when no one field is at fault', () => {
    stageFile(JSON.stringify({ slack: { apps: [app, { ...app, id: 'e1001-b' }] } }));
    expect(refusalOf(() => loadStageSlackApps('dev', root)).message).toBe(
      'deploy/dev.json: invalid Slack app setting: slack (a channel is mapped by two apps)',
    );
  });

  it('collects the secret names every stage file in deploy/ names, skipping files that do not read', () => {
    stageFile(JSON.stringify({ slack: { apps: [app] } }));
    writeFileSync(join(root, 'deploy', 'broken.json'), '{');
    expect(slackSecretNamesOfStageFiles(root)).toEqual(['SlackE1001Bot', 'SlackE1001Signing']);
  });

  it('collects the webhook mapping secret names of every stage file, only names of the secret form', () => {
    stageFile(
      JSON.stringify({
        triggers: [
          { source: 'alertmanager', labels: { team: 'a' }, enterpriseId: 'E1001', secret: 'WebhookE1001Am' },
          { source: 'pagerduty', serviceId: 'P1', enterpriseId: 'E1001', secret: 'not-a-secret-name' },
          null,
        ],
      }),
    );
    writeFileSync(
      join(root, 'deploy', 'other.json'),
      JSON.stringify({ triggers: [{ source: 'pagerduty', secret: 'WebhookE2002Pd' }] }),
    );
    writeFileSync(join(root, 'deploy', 'broken.json'), '{');
    expect(webhookSecretNamesOfStageFiles(root)).toEqual(['WebhookE1001Am', 'WebhookE2002Pd']);
  });
});
