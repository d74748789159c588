import { describe, expect, it, vi } from 'vitest';

describe('the Diagnose Lambda’s cold start', () => {
  it('fails with the names of the bad settings and none of their values', async () => {
    vi.stubEnv('DIAGNOSIS_TABLE_NAME', '');
    vi.stubEnv('DIAGNOSIS_MODEL_API_KEY', '');
    vi.stubEnv('MYSQL_URL', 'postgres://admin:hunter2-secret@db.internal:5432/x');
    vi.stubEnv('LOGS_BACKEND', 'splunk');
    vi.stubEnv('DIAGNOSIS_MODEL_BASE_URL', 'not a url sk-live-abc');
    const failure = await import('../../functions/diagnose.ts').then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    vi.unstubAllEnvs();
    expect(failure?.name).toBe('SettingsError');
    for (const key of [
      'DIAGNOSIS_TABLE_NAME',
      'DIAGNOSIS_MODEL_API_KEY',
      'MYSQL_URL',
      'LOGS_BACKEND',
      'DIAGNOSIS_MODEL_BASE_URL',
    ]) {
      expect(failure?.message).toContain(key);
    }
    expect(failure?.message).not.toMatch(/hunter2|sk-live|db\.internal/);
  });
});
