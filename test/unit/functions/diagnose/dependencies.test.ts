import { DEVELOPMENT_MASKING_SECRET } from '@diagnosis/core';
import { parseDiagnosisSettings, SettingsError } from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';
import { buildDiagnosisDependencies } from '../../../../functions/diagnose/dependencies.ts';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';

const settingsWith = (masking: Record<string, string>) =>
  parseDiagnosisSettings({
    DIAGNOSIS_TABLE_NAME: 'dependencies-test',
    DIAGNOSIS_MODEL_API_KEY: 'sk-dependencies-test',
    SEMANTIC_GUARD: 'off',
    MASKING_SECRET: 'dependencies-test-masking-secret-of-32-characters',
    ...masking,
  });

const coldStart = (masking: Record<string, string>) =>
  buildDiagnosisDependencies(settingsWith(masking), undefined, createFakeEvidence().evidence);

describe('buildDiagnosisDependencies', () => {
  it('fails the cold start naming MASKING_SECRET on a deployed table without MaskingKey, never masking with the public key', async () => {
    const settings = { ...settingsWith({}), MASKING_SECRET: undefined };
    const failure = await buildDiagnosisDependencies(settings, undefined, createFakeEvidence().evidence).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SettingsError);
    expect((failure as SettingsError).keys).toEqual(['MASKING_SECRET']);
  });

  it('masks with the public development key against DynamoDB Local only, and with MaskingKey where it is linked', async () => {
    const local = { ...settingsWith({}), MASKING_SECRET: undefined, DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' };
    const localDeps = await buildDiagnosisDependencies(local, undefined, createFakeEvidence().evidence);
    expect(localDeps.masking?.secret).toBe(DEVELOPMENT_MASKING_SECRET);
    expect((await coldStart({})).masking?.secret).toBe('dependencies-test-masking-secret-of-32-characters');
  });

  it('compiles the stage’s masking patterns and exclusions at cold start', async () => {
    const deps = await coldStart({
      MASKING_PATTERNS: JSON.stringify([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }]),
      MASKING_EXCLUSIONS: JSON.stringify(['CUST-000000']),
    });
    expect(deps.masking?.rules?.find('by CUST-004211')).toEqual([{ start: 3, end: 14, kind: 'customer_id' }]);
    expect(deps.masking?.rules?.isExcluded('CUST-000000')).toBe(true);
  });

  it.each([
    ['MASKING_PATTERNS', JSON.stringify([{ kind: 'order', pattern: '(a+)+\\1' }])],
    ['MASKING_PATTERNS', JSON.stringify([{ kind: 'order', pattern: '.*' }])],
    ['MASKING_EXCLUSIONS', JSON.stringify(['(?=lookahead)'])],
  ])('fails the cold start naming %s when RE2 refuses %s', async (key, value) => {
    // NOTE: the settings parse checks the shape only; RE2's verdict comes where the patterns are compiled.
    const failure = await coldStart({ [key]: value }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(SettingsError);
    expect((failure as SettingsError).keys).toEqual([key]);
    expect((failure as SettingsError).message).not.toContain('lookahead');
  });

  it.each([
    ['configured as the agent', {}, 'deepseek-v4-flash', 'sk-dependencies-test'],
    ['given a key of its own', { SEMANTIC_GUARD_MODEL_API_KEY: 'sk-judge-test' }, 'deepseek-v4-flash', 'sk-judge-test'],
    ['given a model of its own', { SEMANTIC_GUARD_MODEL_ID: 'judge-model' }, 'judge-model', 'sk-dependencies-test'],
  ])('calls the judge with its own settings when %s', async (_case, judge, modelId, key) => {
    const deps = await buildDiagnosisDependencies(
      settingsWith({ SEMANTIC_GUARD: 'enforce', DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash', ...judge }),
      undefined,
      createFakeEvidence().evidence,
    );
    const model = deps.semanticGuard?.model as unknown as {
      modelId: string;
      provider: string;
      config: { headers: () => Record<string, string> };
    };
    expect(model.modelId).toBe(modelId);
    expect(model.provider).toBe('deepseek.chat');
    expect(model.config.headers().authorization).toBe(`Bearer ${key}`);
    expect((deps.model as { modelId?: string }).modelId).toBe('deepseek-v4-flash');
  });
});
