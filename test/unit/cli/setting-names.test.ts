import { WEBHOOK_SECRET_NAME_PATTERN } from '@diagnosis/core';
import { SLACK_SECRET_NAME_PATTERN } from '@diagnosis/functions/infrastructure';
import { describe, expect, it } from 'vitest';
import {
  editDistance,
  findSecretNameMistakes,
  findSettingNameMistakes,
  knownSettingNames,
  ownNamespaces,
} from '../../../packages/cli/src/setting-names.ts';

describe('ownNamespaces', () => {
  it('derives the project’s namespaces from its settings, leaving MySQL’s and Slack’s own to their tools', () => {
    const namespaces = ownNamespaces(knownSettingNames());
    expect(namespaces).toEqual(expect.arrayContaining(['DIAGNOSIS_', 'SEMANTIC_GUARD_', 'MASKING_', 'TRIGGER_']));
    expect(namespaces.some((namespace) => namespace.startsWith('MYSQL'))).toBe(false);
    expect(namespaces.some((namespace) => namespace.startsWith('SLACK'))).toBe(false);
  });
});

describe('knownSettingNames', () => {
  it('holds every function’s settings and the command line’s own', () => {
    for (const name of [
      'DIAGNOSIS_MODEL_PROFILE',
      'SEMANTIC_GUARD_MODEL_ID',
      'TRIGGERS',
      'ALERTMANAGER_WEBHOOK_TOKEN',
      'DIAGNOSIS_WORKFLOW_ARN',
      'DELIVERY_DESTINATIONS',
      'DIAGNOSIS_LOCAL_DATA',
      'EVAL_PRICE',
      'TENANT_ACCESS',
      'SLACK_API_URL',
      'SLACK_TIMEOUT_MS',
      'DIAGNOSIS_API_URL',
    ]) {
      expect(knownSettingNames()).toContain(name);
    }
  });
});

describe('findSettingNameMistakes', () => {
  it('refuses a name in the project’s namespaces that no setting has, naming the nearest setting', () => {
    expect(
      findSettingNameMistakes([
        'DIAGNOSIS_MODEL_PROFIL',
        'DIAGNOSIS_MODEL_BASEURL',
        'SEMANTIC_GUARD_MODEL',
        'MASKING_SECRETS',
      ]).unknown,
    ).toEqual([
      { name: 'DIAGNOSIS_MODEL_BASEURL', suggestion: 'DIAGNOSIS_MODEL_BASE_URL' },
      { name: 'DIAGNOSIS_MODEL_PROFIL', suggestion: 'DIAGNOSIS_MODEL_PROFILE' },
      { name: 'MASKING_SECRETS', suggestion: 'MASKING_SECRET' },
      { name: 'SEMANTIC_GUARD_MODEL', suggestion: 'SEMANTIC_GUARD_MODEL_ID' },
    ]);
    expect(findSettingNameMistakes(['DIAGNOSIS_SOMETHING_ELSE_ENTIRELY']).unknown).toEqual([
      { name: 'DIAGNOSIS_SOMETHING_ELSE_ENTIRELY' },
    ]);
  });

  it('only warns of a near miss outside them, and never of other tools’ names', () => {
    const findings = findSettingNameMistakes([
      'LOG_BACKEND',
      'MYSQL_URI',
      'MYSQL_PWD',
      'MYSQL_HOST',
      'MYSQL_TCP_PORT',
      'SLACK_BOT_TOKEN',
      'SLACK_SIGNING_SECRET',
      'SLACK_API_ULR',
      'PATH',
      'HOME',
      'AWS_REGION',
    ]);
    expect(findings.unknown).toEqual([]);
    expect(findings.nearMisses).toEqual([
      { name: 'LOG_BACKEND', suggestion: 'LOGS_BACKEND' },
      { name: 'MYSQL_URI', suggestion: 'MYSQL_URL' },
      { name: 'SLACK_API_ULR', suggestion: 'SLACK_API_URL' },
    ]);
  });

  it('finds nothing in an environment of known settings', () => {
    expect(findSettingNameMistakes(knownSettingNames())).toEqual({ unknown: [], nearMisses: [] });
  });
});

describe('findSecretNameMistakes', () => {
  const known = ['SlackE1001BotToken', 'SlackE1001SigningSecret'];

  it('refuses a variable named like a Slack secret that no stage file names, with the secret meant', () => {
    expect(
      findSecretNameMistakes(
        ['SlackE1001BotTokn', 'SlackE1001SigningSecret', 'SlackSomethingElse'],
        known,
        SLACK_SECRET_NAME_PATTERN,
      ),
    ).toEqual([{ name: 'SlackE1001BotTokn', suggestion: 'SlackE1001BotToken' }, { name: 'SlackSomethingElse' }]);
  });

  it('leaves every other name alone: the known secrets, other tools’ and other forms', () => {
    expect(
      findSecretNameMistakes(
        ['SlackE1001BotToken', 'SLACK_BOT_TOKEN', 'slackToken', 'Slack', 'Slack_x', 'PATH'],
        known,
        SLACK_SECRET_NAME_PATTERN,
      ),
    ).toEqual([]);
  });

  it('refuses a variable named like a webhook mapping secret that no stage file names; leaves Slack’s to its own check', () => {
    expect(
      findSecretNameMistakes(
        ['WebhookE1001Amm', 'WebhookE1001Am', 'WEBHOOK_URL', 'SlackE1001BotTokn'],
        ['WebhookE1001Am'],
        WEBHOOK_SECRET_NAME_PATTERN,
      ),
    ).toEqual([{ name: 'WebhookE1001Amm', suggestion: 'WebhookE1001Am' }]);
  });
});

describe('editDistance', () => {
  it('counts edits, and stops above its limit', () => {
    expect(editDistance('MYSQL_URI', 'MYSQL_URL')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('A', 'ABCDEFGH', 3)).toBe(4);
  });
});
