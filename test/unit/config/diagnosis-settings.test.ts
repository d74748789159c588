import { DEFAULT_RUN_LIMITS, SettingsError } from '@diagnosis/core';
import { limitsOf, parseDiagnosisSettings } from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';

const REQUIRED = { DIAGNOSIS_TABLE_NAME: 'diagnosis-test', DIAGNOSIS_MODEL_API_KEY: 'sk-test' };

describe('parseDiagnosisSettings', () => {
  it('sets the per-request model time limit from DIAGNOSIS_MODEL_TIMEOUT_MS', () => {
    const settings = parseDiagnosisSettings({ ...REQUIRED, DIAGNOSIS_MODEL_TIMEOUT_MS: '45000' });
    expect(limitsOf(settings)).toMatchObject({ modelRequestTimeoutMs: 45_000 });
  });

  it('keeps the default of 90 s when DIAGNOSIS_MODEL_TIMEOUT_MS is unset', () => {
    expect(limitsOf(parseDiagnosisSettings(REQUIRED))).not.toHaveProperty('modelRequestTimeoutMs');
    expect(DEFAULT_RUN_LIMITS.modelRequestTimeoutMs).toBe(90_000);
  });

  it.each(['0', '-5', '1.5', 'soon'])('refuses DIAGNOSIS_MODEL_TIMEOUT_MS=%s naming the key only', (value) => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, DIAGNOSIS_MODEL_TIMEOUT_MS: value })).toThrow(
      new SettingsError(['DIAGNOSIS_MODEL_TIMEOUT_MS']),
    );
  });

  it('sets the input byte limits from DIAGNOSIS_MAX_QUERY_BYTES, _PREVIOUS_TURN_BYTES and _INPUT_BYTES', () => {
    const settings = parseDiagnosisSettings({
      ...REQUIRED,
      DIAGNOSIS_MAX_QUERY_BYTES: '2048',
      DIAGNOSIS_MAX_PREVIOUS_TURN_BYTES: '1024',
      DIAGNOSIS_MAX_INPUT_BYTES: '8192',
    });
    expect(limitsOf(settings)).toEqual({ maxQueryBytes: 2_048, maxPreviousTurnBytes: 1_024, maxInputBytes: 8_192 });
  });

  it.each([
    ['DIAGNOSIS_MAX_PREVIOUS_TURN_BYTES', '511'],
    ['DIAGNOSIS_MAX_QUERY_BYTES', '32769'],
    ['DIAGNOSIS_MAX_INPUT_BYTES', '0'],
  ])('refuses %s=%s, outside the limit’s range, naming the key only', (key, value) => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, [key]: value })).toThrow(new SettingsError([key]));
  });

  it('keeps the time zone Asia/Shanghai when DIAGNOSIS_TIMEZONE is unset, and takes a named IANA zone', () => {
    expect(parseDiagnosisSettings(REQUIRED).DIAGNOSIS_TIMEZONE).toBe('Asia/Shanghai');
    expect(parseDiagnosisSettings({ ...REQUIRED, DIAGNOSIS_TIMEZONE: 'Europe/Berlin' }).DIAGNOSIS_TIMEZONE).toBe(
      'Europe/Berlin',
    );
  });

  it.each(['Mars/Olympus', '+08:00', 'CST+8'])('refuses DIAGNOSIS_TIMEZONE=%s naming the key only', (value) => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, DIAGNOSIS_TIMEZONE: value })).toThrow(
      new SettingsError(['DIAGNOSIS_TIMEZONE']),
    );
  });
});
