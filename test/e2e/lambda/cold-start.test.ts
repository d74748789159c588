import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';

describe('the Diagnose Lambda’s cold start', () => {
  it('fails with the names of the bad settings and none of their values', async () => {
    vi.stubEnv('DIAGNOSIS_TABLE_NAME', '');
    vi.stubEnv('DIAGNOSIS_MODEL_API_KEY', '');
    vi.stubEnv('MYSQL_URL', 'postgres://admin:hunter2-secret@db.internal:5432/x');
    vi.stubEnv('LOGS_BACKEND', 'splunk');
    vi.stubEnv('DIAGNOSIS_MODEL_BASE_URL', 'not a url sk-live-abc');
    const failure = await import('../../../functions/diagnose.ts').then(
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

describe('the cold start of every function', () => {
  const secretParts = ['P@ss', 'w#rd', 'Pssw0rd', 'db.internal'];
  const expectNoSecret = (failure: unknown) => {
    const seen = [
      String(failure),
      JSON.stringify(failure),
      inspect(failure, { depth: 10, showHidden: true }),
      JSON.stringify((failure as Error | undefined)?.cause ?? null),
    ].join('\n');
    for (const part of secretParts) expect(seen).not.toContain(part);
  };

  it.each([
    ['a space in the password', 'mysql://diagnosis:P@ss w#rd@db.internal:3306/orders'],
    ['a bracket in the password', 'mysql://diagnosis:P@ss]w#rd@db.internal:3306/orders'],
    ['a port out of range', 'mysql://diagnosis:Pssw0rd@db.internal:99999/orders'],
  ])('never logs MYSQL_URL with %s', async (_label, url) => {
    vi.resetModules();
    vi.stubEnv('DIAGNOSIS_TABLE_NAME', 'table-x');
    vi.stubEnv('DIAGNOSIS_MODEL_API_KEY', 'sk-test');
    vi.stubEnv('MYSQL_URL', url);
    const failure = await import('../../../functions/diagnose.ts').then(
      () => undefined,
      (error: unknown) => error,
    );
    vi.unstubAllEnvs();
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('MYSQL_URL');
    expectNoSecret(failure);
  });

  it.each(['get-run', 'get-run-audit', 'get-run-reasoning', 'get-run-reveal'])(
    'fails %s on a bad tenant policy naming the key only',
    async (name) => {
      vi.resetModules();
      vi.stubEnv('DIAGNOSIS_TABLE_NAME', 'table-x');
      vi.stubEnv('TENANT_ACCESS', '[{"principal":"*","enterprises":["e1001"],"secret":"P@ss"}]');
      const failure = await import(`../../../functions/${name}.ts`).then(
        () => undefined,
        (error: unknown) => error,
      );
      vi.unstubAllEnvs();
      expect((failure as Error).message).toBe('invalid configuration: TENANT_ACCESS');
      expectNoSecret(failure);
    },
  );

  it.each(['start-diagnosis', 'cancel-run'])(
    'fails %s without DIAGNOSIS_WORKFLOW_ARN, naming the key (no in-process fallback in a Lambda)',
    async (name) => {
      vi.resetModules();
      vi.stubEnv('DIAGNOSIS_TABLE_NAME', 'table-x');
      vi.stubEnv('DIAGNOSIS_WORKFLOW_ARN', '');
      const failure = await import(`../../../functions/${name}.ts`).then(
        () => undefined,
        (error: unknown) => error,
      );
      vi.unstubAllEnvs();
      expect(failure).toMatchObject({
        name: 'SettingsError',
        message: 'invalid configuration: DIAGNOSIS_WORKFLOW_ARN',
      });
    },
  );

  it.each(['start-diagnosis', 'cancel-run'])('starts %s with a workflow ARN', async (name) => {
    vi.resetModules();
    vi.stubEnv('DIAGNOSIS_TABLE_NAME', 'table-x');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv(
      'DIAGNOSIS_WORKFLOW_ARN',
      'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-DiagnosisWorkflow',
    );
    const loaded = (await import(`../../../functions/${name}.ts`)) as { handler?: unknown };
    vi.unstubAllEnvs();
    expect(typeof loaded.handler).toBe('function');
  });
});
