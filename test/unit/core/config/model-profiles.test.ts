import { SettingsError } from '@diagnosis/core';
import {
  MODEL_PROFILE_NAMES,
  MODEL_PROFILES,
  modelProfile,
  parseDiagnosisSettings,
  providerJsonSchema,
} from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';
import { STAGE_SETTING_KEYS } from '../../../../deploy/stage-config.ts';
import { diagnosisDraftJsonSchema } from '../../../../packages/core/src/draft/diagnosis-draft.ts';

const REQUIRED = { DIAGNOSIS_TABLE_NAME: 'diagnosis-test', DIAGNOSIS_MODEL_API_KEY: 'sk-test' };

describe('MODEL_PROFILES', () => {
  it.each(MODEL_PROFILE_NAMES)('states every fact of the %s profile, with its sources', (name) => {
    const profile = MODEL_PROFILES[name];
    expect(profile.name).toBe(name);
    expect(URL.canParse(profile.baseUrl)).toBe(true);
    expect(profile.sources.length).toBeGreaterThan(0);
    for (const source of profile.sources) expect(source).toMatch(/^https:\/\//);
    // NOTE: a profile asks for JSON Schema outputs only where the provider documents them, JSON mode likewise.
    if (profile.draftFormat === 'json-schema') expect(profile.jsonSchema).toBe(true);
    if (profile.draftFormat === 'json-object') expect(profile.jsonObject).toBe(true);
    expect(profile.priceNote.length).toBeGreaterThan(0);
  });
});

describe('parseDiagnosisSettings with DIAGNOSIS_MODEL_PROFILE', () => {
  it('defaults to the deepseek profile, its base URL and model, the judge on the same', () => {
    const settings = parseDiagnosisSettings(REQUIRED);
    expect(settings).toMatchObject({
      DIAGNOSIS_MODEL_PROFILE: 'deepseek',
      DIAGNOSIS_MODEL_BASE_URL: 'https://api.deepseek.com/v1',
      DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
      SEMANTIC_GUARD_MODEL_PROFILE: 'deepseek',
      SEMANTIC_GUARD_MODEL_BASE_URL: 'https://api.deepseek.com/v1',
      SEMANTIC_GUARD_MODEL_ID: 'deepseek-v4-flash',
      SEMANTIC_GUARD_MODEL_API_KEY: 'sk-test',
    });
  });

  it('takes the base URL and model of the chosen profile, and keeps an explicit URL and id', () => {
    expect(parseDiagnosisSettings({ ...REQUIRED, DIAGNOSIS_MODEL_PROFILE: 'qwen' })).toMatchObject({
      DIAGNOSIS_MODEL_BASE_URL: modelProfile('qwen').baseUrl,
      DIAGNOSIS_MODEL_ID: 'qwen-plus',
    });
    expect(
      parseDiagnosisSettings({
        ...REQUIRED,
        DIAGNOSIS_MODEL_PROFILE: 'openai',
        DIAGNOSIS_MODEL_BASE_URL: 'https://gateway.example/v1',
        DIAGNOSIS_MODEL_ID: 'gpt-5.4',
      }),
    ).toMatchObject({ DIAGNOSIS_MODEL_BASE_URL: 'https://gateway.example/v1', DIAGNOSIS_MODEL_ID: 'gpt-5.4' });
  });

  it('needs DIAGNOSIS_MODEL_ID for the openai-compatible profile, which has no default model', () => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, DIAGNOSIS_MODEL_PROFILE: 'openai-compatible' })).toThrow(
      new SettingsError(['DIAGNOSIS_MODEL_ID']),
    );
    expect(
      parseDiagnosisSettings({
        ...REQUIRED,
        DIAGNOSIS_MODEL_PROFILE: 'openai-compatible',
        DIAGNOSIS_MODEL_ID: 'llama3',
      }),
    ).toMatchObject({ DIAGNOSIS_MODEL_BASE_URL: 'http://localhost:8000/v1', SEMANTIC_GUARD_MODEL_ID: 'llama3' });
  });

  it('gives the judge its own profile: that profile’s base URL and model, the agent’s key unless it has one', () => {
    const settings = parseDiagnosisSettings({
      ...REQUIRED,
      DIAGNOSIS_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      SEMANTIC_GUARD_MODEL_PROFILE: 'openai',
    });
    expect(settings).toMatchObject({
      DIAGNOSIS_MODEL_BASE_URL: 'http://127.0.0.1:9/v1',
      SEMANTIC_GUARD_MODEL_PROFILE: 'openai',
      SEMANTIC_GUARD_MODEL_BASE_URL: 'https://api.openai.com/v1',
      SEMANTIC_GUARD_MODEL_ID: 'gpt-5.4-mini',
      SEMANTIC_GUARD_MODEL_API_KEY: 'sk-test',
    });
    expect(
      parseDiagnosisSettings({
        ...REQUIRED,
        SEMANTIC_GUARD_MODEL_PROFILE: 'openai',
        SEMANTIC_GUARD_MODEL_API_KEY: 'sk-j',
      }).SEMANTIC_GUARD_MODEL_API_KEY,
    ).toBe('sk-j');
  });

  it('needs the judge’s model id when only the judge uses the openai-compatible profile', () => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, SEMANTIC_GUARD_MODEL_PROFILE: 'openai-compatible' })).toThrow(
      new SettingsError(['SEMANTIC_GUARD_MODEL_ID']),
    );
  });

  it.each([
    ['DIAGNOSIS_MODEL_PROFILE', 'anthropic'],
    ['SEMANTIC_GUARD_MODEL_PROFILE', 'DeepSeek'],
    ['SEMANTIC_GUARD_MODEL_BASE_URL', 'ftp://judge.example'],
  ])('refuses %s=%s naming the key only', (key, value) => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, [key]: value })).toThrow(new SettingsError([key]));
  });

  it('lets a stage file choose the profiles, never the judge’s key', () => {
    expect(STAGE_SETTING_KEYS).toContain('DIAGNOSIS_MODEL_PROFILE');
    expect(STAGE_SETTING_KEYS).toContain('SEMANTIC_GUARD_MODEL_PROFILE');
    expect(STAGE_SETTING_KEYS).not.toContain('SEMANTIC_GUARD_MODEL_API_KEY');
  });
});

describe('providerJsonSchema', () => {
  it('drops $schema and the length and count bounds, keeping the Draft’s structure and its field names', () => {
    const schema = providerJsonSchema(diagnosisDraftJsonSchema()) as Record<string, unknown>;
    const text = JSON.stringify(schema);
    for (const keyword of ['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems']) {
      expect(text).not.toContain(`"${keyword}"`);
    }
    expect(schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.keys(schema.properties as object)).toEqual([
      'conclusion',
      'analysis',
      'action_plan',
      'recommendations',
      'limitations',
    ]);
    expect(schema.required).toEqual(['conclusion', 'analysis', 'action_plan', 'recommendations', 'limitations']);
  });

  it('keeps a property that happens to be named like a dropped keyword', () => {
    expect(
      providerJsonSchema({ type: 'object', properties: { maxLength: { type: 'integer', maxLength: 3 } } }),
    ).toEqual({
      type: 'object',
      properties: { maxLength: { type: 'integer' } },
    });
  });
});
