import { DEFAULT_RUN_LIMITS, SettingsError } from '@diagnosis/core';
import { limitsOf, parseDiagnosisSettings, parseTriggerSettings } from '@diagnosis/core/config';
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

  // A key copied from documentation with its ellipsis (`sk-…`) once failed the run with a TypeError of fetch's:
  // an HTTP header carries printable ASCII only, so such a key is a setting the parse refuses, naming it.
  it.each([
    ['an ellipsis', 'sk-…'],
    ['a space', 'sk-abc def'],
    ['a line break', 'sk-abc\n'],
    ['a Latin-1 letter', 'sk-abcé'],
  ])('refuses a model key with %s, naming the key only', (_label, key) => {
    for (const name of ['DIAGNOSIS_MODEL_API_KEY', 'SEMANTIC_GUARD_MODEL_API_KEY']) {
      expect(() => parseDiagnosisSettings({ ...REQUIRED, [name]: key })).toThrow(new SettingsError([name]));
    }
  });

  it('takes a model key of printable ASCII as it is', () => {
    const key = 'sk-Xk9_-.~+/=!#$%&*abcdef0123456789';
    const settings = parseDiagnosisSettings({ ...REQUIRED, DIAGNOSIS_MODEL_API_KEY: key });
    expect([settings.DIAGNOSIS_MODEL_API_KEY, settings.SEMANTIC_GUARD_MODEL_API_KEY]).toEqual([key, key]);
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

  // A run id is free again once its run item is gone: a partition that outlived it would be the next run's under that id.
  it.each([
    [{ REASONING_RETENTION_DAYS: '91' }, ['REASONING_RETENTION_DAYS', 'PSEUDONYM_RETENTION_DAYS']],
    [{ PSEUDONYM_RETENTION_DAYS: '120' }, ['PSEUDONYM_RETENTION_DAYS']],
    [{ RETENTION_DAYS: '7', PSEUDONYM_RETENTION_DAYS: '7' }, ['REASONING_RETENTION_DAYS']],
  ])('refuses a reasoning or pseudonym retention longer than the run’s (%o)', (over, keys) => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, ...over })).toThrow(new SettingsError(keys));
  });

  it('accepts retentions up to the run’s', () => {
    const settings = parseDiagnosisSettings({
      ...REQUIRED,
      RETENTION_DAYS: '30',
      REASONING_RETENTION_DAYS: '30',
      PSEUDONYM_RETENTION_DAYS: '7',
    });
    expect(settings).toMatchObject({ RETENTION_DAYS: 30, REASONING_RETENTION_DAYS: 30, PSEUDONYM_RETENTION_DAYS: 7 });
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

  it('keeps 16 audit writes in flight per run by default and takes 1 to 50', () => {
    expect(parseDiagnosisSettings(REQUIRED).AUDIT_MAX_WRITES_IN_FLIGHT).toBe(16);
    expect(parseDiagnosisSettings({ ...REQUIRED, AUDIT_MAX_WRITES_IN_FLIGHT: '1' }).AUDIT_MAX_WRITES_IN_FLIGHT).toBe(1);
    expect(parseDiagnosisSettings({ ...REQUIRED, AUDIT_MAX_WRITES_IN_FLIGHT: '50' }).AUDIT_MAX_WRITES_IN_FLIGHT).toBe(
      50,
    );
  });

  it.each(['0', '51', '1e3', 'all'])('refuses AUDIT_MAX_WRITES_IN_FLIGHT=%s naming the key only', (value) => {
    expect(() => parseDiagnosisSettings({ ...REQUIRED, AUDIT_MAX_WRITES_IN_FLIGHT: value })).toThrow(
      new SettingsError(['AUDIT_MAX_WRITES_IN_FLIGHT']),
    );
  });

  it('sets the tool-call flood limits from DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND and _MAX_REJECTED_TOOL_CALLS', () => {
    const settings = parseDiagnosisSettings({
      ...REQUIRED,
      DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND: '8',
      DIAGNOSIS_MAX_REJECTED_TOOL_CALLS: '4',
    });
    expect(limitsOf(settings)).toEqual({ maxToolCallsPerRound: 8, maxRejectedToolCalls: 4 });
    expect(DEFAULT_RUN_LIMITS).toMatchObject({ maxToolCallsPerRound: 16, maxRejectedToolCalls: 16 });
  });

  it.each(['DIAGNOSIS_MAX_TOOL_CALLS_PER_ROUND', 'DIAGNOSIS_MAX_REJECTED_TOOL_CALLS'])(
    'refuses %s=0 naming the key only',
    (key) => {
      expect(() => parseDiagnosisSettings({ ...REQUIRED, [key]: '0' })).toThrow(new SettingsError([key]));
    },
  );
});

describe('parseTriggerSettings', () => {
  // NOTE: Alertmanager sends `Authorization: Bearer <token>`; a token with a space or a non-ASCII character can never
  // be matched (the route would refuse every request in silence), so the setting refuses it, naming the key only.
  it.each([
    ['a space', 'secret token of 24 chars'],
    ['a tab', 'secret\ttoken-of-24-chars'],
    ['a non-ASCII character', 'sécret-token-of-24-chars'],
  ])('refuses an Alertmanager token with %s, naming the key and not the value', (_what, token) => {
    let thrown: unknown;
    try {
      parseTriggerSettings({ DIAGNOSIS_TABLE_NAME: 'diagnosis', ALERTMANAGER_WEBHOOK_TOKEN: token });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toEqual(new SettingsError(['ALERTMANAGER_WEBHOOK_TOKEN']));
    expect(String((thrown as Error).message)).not.toContain(token);
  });

  it('refuses at cold start a mapping whose question cannot fit the query’s byte limit, naming it (issue 32 item 5)', () => {
    const triggers = (query: string) =>
      JSON.stringify([
        { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001' },
        { source: 'pagerduty', serviceId: 'PF9KMXH', enterpriseId: 'E1001', query },
      ]);
    const long = `${'诊'.repeat(900)}{alarm}{reason}{alarm}`;
    expect(() => parseTriggerSettings({ DIAGNOSIS_TABLE_NAME: 'diagnosis', TRIGGERS: triggers(long) })).toThrow(
      new SettingsError(['TRIGGERS.1.query']),
    );
    expect(
      parseTriggerSettings({
        DIAGNOSIS_TABLE_NAME: 'diagnosis',
        TRIGGERS: triggers(long),
        DIAGNOSIS_MAX_QUERY_BYTES: '8192',
      }).TRIGGERS,
    ).toHaveLength(2);
  });

  it('takes a token of printable ASCII without spaces', () => {
    const token = 'Xk9_-.~+/=!#$%&*abcdef';
    expect(
      parseTriggerSettings({ DIAGNOSIS_TABLE_NAME: 'diagnosis', ALERTMANAGER_WEBHOOK_TOKEN: token })
        .ALERTMANAGER_WEBHOOK_TOKEN,
    ).toBe(token);
  });
});
