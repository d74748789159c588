// NOTE: over 300 lines on purpose: the stage file's one parse and what the deploy derives from it (paths, log
// permissions, ignored shell settings), over the committed stage files.
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import defaultStage from '../../../deploy/default.json' with { type: 'json' };
import prodStage from '../../../deploy/prod.json' with { type: 'json' };
import {
  buildLogsQueryPermissions,
  DEPLOY_PROVIDED_SETTINGS,
  ignoredShellSettings,
  loadStageConfig,
  parseStageConfig,
  STAGE_SETTING_KEYS,
  type StageConfig,
  StageConfigError,
  type StageFile,
  stageFilePath,
} from '../../../deploy/stage-config.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

// NOTE: the committed files type-check against the stage file's type (`npm run typecheck` covers test/): a string
// where a number or boolean belongs, or a wrong nesting, fails the type check before any deploy.
const committed: Record<string, StageFile> = { default: defaultStage, prod: prodStage };

/** An app root of our own: its own evidence beside a copy of the example world's layout. */
const ownRoot = mkdtempSync(join(tmpdir(), 'stage-config-'));
afterAll(() => rmSync(ownRoot, { recursive: true, force: true }));
for (const folder of ['examples/knowledge', 'examples/logs', 'examples/mysql', 'ops/runbooks', 'ops/mysql']) {
  mkdirSync(join(ownRoot, folder), { recursive: true });
}
writeFileSync(join(ownRoot, 'examples/mysql/catalog.json'), '[]');
writeFileSync(join(ownRoot, 'ops/mysql/catalog.json'), '[]');
symlinkSync(join(ownRoot, 'examples/logs'), join(ownRoot, 'ops/logs-link'));

/** A production stage file with real evidence: Bedrock, CloudWatch Logs and a catalog of its own. */
const validProduction = {
  settings: {
    KNOWLEDGE_BACKEND: 'bedrock',
    BEDROCK_KNOWLEDGE_BASE_ID: 'KB12345678',
    LOGS_BACKEND: 'cloudwatch',
    LOGS_GROUPS: { 'order-service': ['/ecs/order'], 'payment-gateway': ['/ecs/payment', '/ecs/order'] },
    MYSQL_CATALOG_PATH: 'ops/mysql/catalog.json',
    MYSQL_POOL_SIZE: 8,
    TENANT_ACCESS: [{ principal: '123456789012', enterprises: ['E1001'] }],
    DIAGNOSIS_TIMEZONE: 'Europe/Berlin',
  },
  alarms: { email: 'oncall@example.com', failedRatePercent: 10 },
} satisfies StageFile;

const refusal = (run: () => unknown): StageConfigError => {
  try {
    run();
  } catch (error) {
    if (error instanceof StageConfigError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('parseStageConfig', () => {
  it('accepts a production file with its own evidence and hands the functions strings', () => {
    const config: StageConfig = parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', validProduction);
    expect(config.production).toBe(true);
    expect(config.exampleEvidence).toEqual([]);
    expect(config.environment).toEqual({
      KNOWLEDGE_BACKEND: 'bedrock',
      BEDROCK_KNOWLEDGE_BASE_ID: 'KB12345678',
      LOGS_BACKEND: 'cloudwatch',
      LOGS_GROUPS: '{"order-service":["/ecs/order"],"payment-gateway":["/ecs/payment","/ecs/order"]}',
      MYSQL_CATALOG_PATH: 'ops/mysql/catalog.json',
      MYSQL_POOL_SIZE: '8',
      TENANT_ACCESS: '[{"principal":"123456789012","enterprises":["E1001"]}]',
      DIAGNOSIS_TIMEZONE: 'Europe/Berlin',
    });
    expect(config.settings.MYSQL_POOL_SIZE).toBe(8);
    expect(config.settings.TENANT_ACCESS).toEqual([{ principal: '123456789012', enterprises: ['E1001'] }]);
    expect(config.alarms.failedRatePercent).toBe(10);
    expect(config.alarms.email).toBe('oncall@example.com');
    expect(config.batchMaxConcurrency).toBe(16);
  });

  it.each([
    ['every evidence setting left to its default', {}],
    ['the example folders named', { KNOWLEDGE_DIR: 'examples/knowledge', LOGS_DIR: 'examples/logs' }],
    [
      'a path that walks back into them',
      { ...validProduction.settings, MYSQL_CATALOG_PATH: './ops/../examples/mysql/catalog.json' },
    ],
    ['a link to them', { ...validProduction.settings, LOGS_BACKEND: 'local', LOGS_DIR: 'ops/logs-link' }],
  ])('refuses the example world on prod: %s', (_, settings) => {
    const error = refusal(() => parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', { settings }));
    expect(error.message).toContain('allowExampleEvidence');
    expect(error.message).toContain('deploy/prod.json');
    expect(error.message).toMatch(/KNOWLEDGE_DIR=|LOGS_DIR=|MYSQL_CATALOG_PATH=/);
  });

  it('names each example setting prod would ship', () => {
    const error = refusal(() => parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', { settings: {} }));
    expect(error.message).toContain(
      'KNOWLEDGE_DIR=examples/knowledge, LOGS_DIR=examples/logs, MYSQL_CATALOG_PATH=examples/mysql/catalog.json',
    );
  });

  it('deploys the example world on prod only when the file allows it explicitly', () => {
    const config = parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', {
      settings: { TENANT_ACCESS: [] },
      allowExampleEvidence: true,
    });
    expect(config.exampleEvidence).toHaveLength(3);
  });

  it('refuses prod without TENANT_ACCESS, naming the key (every caller could use every enterprise)', () => {
    const { TENANT_ACCESS: _, ...withoutPolicy } = validProduction.settings;
    const error = refusal(() => parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', { settings: withoutPolicy }));
    expect(error.message).toBe(
      'deploy/prod.json: TENANT_ACCESS is not set: stage prod deploys only with a tenant access policy (README, "Security model")',
    );
    expect(
      refusal(() =>
        parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', { settings: { ...withoutPolicy, TENANT_ACCESS: '' } }),
      ).message,
    ).toContain('TENANT_ACCESS is not set');
  });

  it('deploys prod with an empty policy (no caller may use any enterprise until a rule grants one)', () => {
    const config = parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', {
      settings: { ...validProduction.settings, TENANT_ACCESS: [] },
    });
    expect(config.settings.TENANT_ACCESS).toEqual([]);
  });

  it('lets any other stage deploy without TENANT_ACCESS (sst.config.ts warns)', () => {
    const { TENANT_ACCESS: _, ...withoutPolicy } = validProduction.settings;
    const config = parseStageConfig(ownRoot, 'staging', 'deploy/staging.json', { settings: withoutPolicy });
    expect(config.settings.TENANT_ACCESS).toBeUndefined();
  });

  it('takes reserved concurrency from the file, else the small default', () => {
    expect(parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', { settings: {} }).reservedConcurrency).toEqual({
      Diagnose: 10,
      api: 2,
    });
    const config = parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', {
      ...validProduction,
      reservedConcurrency: { Diagnose: 200, api: 25 },
    });
    expect(config.reservedConcurrency).toEqual({ Diagnose: 200, api: 25 });
  });

  it.each([
    ['zero (a function that never runs)', { Diagnose: 0, api: 2 }, 'reservedConcurrency.Diagnose'],
    ['a fraction', { Diagnose: 10, api: 2.5 }, 'reservedConcurrency.api'],
    ['a negative value', { Diagnose: -1, api: 2 }, 'reservedConcurrency.Diagnose'],
    ['over the account default', { Diagnose: 1_001, api: 2 }, 'reservedConcurrency.Diagnose'],
    ['a string', { Diagnose: '10', api: 2 }, 'reservedConcurrency.Diagnose'],
    ['a missing key', { Diagnose: 10 }, 'reservedConcurrency.api'],
    ['an unknown function', { Diagnose: 10, api: 2, GetRun: 5 }, 'reservedConcurrency.GetRun'],
  ])('refuses reserved concurrency with %s, naming the key', (_, reservedConcurrency, key) => {
    const error = refusal(() =>
      parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', { settings: {}, reservedConcurrency }),
    );
    expect(error.message).toBe(`deploy/alice.json: invalid or unknown keys: ${key}`);
  });

  it('lets any other stage deploy the example world (and says which settings point at it)', () => {
    const config = parseStageConfig(ownRoot, 'alice', 'deploy/default.json', { settings: {} });
    expect(config.production).toBe(false);
    expect(config.exampleEvidence).toEqual([
      'KNOWLEDGE_DIR=examples/knowledge',
      'LOGS_DIR=examples/logs',
      'MYSQL_CATALOG_PATH=examples/mysql/catalog.json',
    ]);
  });

  it.each([
    ['a typo in a setting name', { settings: { LOG_BACKEND: 'cloudwatch' } }, 'settings.LOG_BACKEND'],
    ['a typo at the top', { settings: {}, allowExampleEvidnce: true }, 'allowExampleEvidnce'],
    ['a typo in the alarms', { settings: {}, alarms: { failedRatePercnt: 5 } }, 'alarms.failedRatePercnt'],
    ['a secret in a committed file', { settings: { MYSQL_URL: 'mysql://u:hunter2@db/x' } }, 'settings.MYSQL_URL'],
    ['what the deploy links', { settings: { DIAGNOSIS_TABLE_NAME: 'other-table' } }, 'settings.DIAGNOSIS_TABLE_NAME'],
    ['a boolean where a string belongs', { settings: { SEMANTIC_GUARD: true } }, 'settings.SEMANTIC_GUARD'],
    ['a file that is not an object', 'just text', '(root)'],
    ['a file without settings', {}, 'settings'],
  ])('refuses %s, naming the key and never the value', (_, json, key) => {
    const error = refusal(() => parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', json));
    expect(error.message).toContain(key);
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    ['MYSQL_POOL_SIZE', 0],
    ['SEMANTIC_GUARD', 'loud'],
    ['TENANT_ACCESS', [{ principal: 'arn:aws:sts::*:assumed-role/x', enterprises: ['E1001'] }]],
    ['LOGS_GROUPS', { 'order-service': ['*'] }],
    ['DIAGNOSIS_TIMEZONE', 'Mars/Olympus'],
    ['DIAGNOSIS_MAX_TOOL_CALLS', 0],
    ['MASKING', 'off'],
    // A backreference RE2 cannot run in linear time, a pattern that matches everything, a kind that is not one.
    ['MASKING_PATTERNS', [{ kind: 'order', pattern: '(a+)+\\1' }]],
    ['MASKING_PATTERNS', [{ kind: 'order', pattern: '.*' }]],
    ['MASKING_PATTERNS', [{ kind: 'Order Id', pattern: 'O[0-9]{8}' }]],
    ['MASKING_EXCLUSIONS', ['(?=lookahead)']],
  ])('refuses %s = %j as the functions would at cold start, naming the key', (key, value) => {
    const error = refusal(() =>
      parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', {
        settings: { ...validProduction.settings, [key]: value },
      }),
    );
    expect(error.message).toBe(`deploy/alice.json: settings the functions would refuse: ${key}`);
  });

  it('refuses a question template that cannot fit the query’s byte limit, naming the mapping (issue 32 item 5)', () => {
    // 900 Chinese characters (2,700 bytes) pass the 1,000-character cap; with the alarm's name at its cap twice they
    // cannot fit the default 4,096 bytes, and a smaller DIAGNOSIS_MAX_QUERY_BYTES refuses even the default question.
    const long = {
      source: 'pagerduty',
      serviceId: 'PF9KMXH',
      enterpriseId: 'E1001',
      query: `${'诊'.repeat(900)}{alarm}{reason}{alarm}`,
    };
    const short = { source: 'cloudwatch', alarmNamePattern: 'E1001-*', enterpriseId: 'E1001' };
    const error = refusal(() =>
      parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', { settings: {}, triggers: [short, long] }),
    );
    expect(error.message).toBe(
      'deploy/alice.json: question templates that cannot fit DIAGNOSIS_MAX_QUERY_BYTES: triggers.1.query',
    );
    expect(
      parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', {
        settings: { DIAGNOSIS_MAX_QUERY_BYTES: 8_192 },
        triggers: [short, long],
      }).triggers,
    ).toHaveLength(2);
    const small = refusal(() =>
      parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', {
        settings: { DIAGNOSIS_MAX_QUERY_BYTES: 512 },
        triggers: [short],
      }),
    );
    expect(small.message).toContain('triggers.0.query');
  });

  it('refuses a knowledge folder, logs folder or catalog that is not there', () => {
    const error = refusal(() =>
      parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', {
        settings: { KNOWLEDGE_DIR: 'ops/runbooks', LOGS_DIR: 'ops/no-logs', MYSQL_CATALOG_PATH: 'ops/none.json' },
      }),
    );
    expect(error.message).toBe(
      'deploy/alice.json: no such file or folder: LOGS_DIR=ops/no-logs, MYSQL_CATALOG_PATH=ops/none.json',
    );
  });

  it('hands the functions a stage’s masking patterns and exclusions as JSON, and never takes the masking secret', () => {
    const config = parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', {
      settings: {
        ...validProduction.settings,
        MASKING: 'secrets-only',
        MASKING_PATTERNS: [{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }],
        MASKING_EXCLUSIONS: ['noreply@example\\.com'],
      },
    });
    expect(config.environment.MASKING).toBe('secrets-only');
    expect(JSON.parse(config.environment.MASKING_PATTERNS ?? '')).toEqual([
      { kind: 'customer_id', pattern: 'CUST-[0-9]{6}' },
    ]);
    const error = refusal(() =>
      parseStageConfig(ownRoot, 'alice', 'deploy/alice.json', { settings: { MASKING_SECRET: 'x'.repeat(40) } }),
    );
    expect(error.message).toContain('settings.MASKING_SECRET');
  });

  it('lets a stage file set every setting of the functions but what the deploy provides', () => {
    expect(STAGE_SETTING_KEYS).toContain('DIAGNOSIS_TIMEZONE');
    expect(STAGE_SETTING_KEYS).toContain('TENANT_ACCESS');
    expect(STAGE_SETTING_KEYS).toContain('DIAGNOSIS_MAX_TOOL_CALLS');
    for (const key of DEPLOY_PROVIDED_SETTINGS) expect(STAGE_SETTING_KEYS).not.toContain(key);
  });
});

describe('the committed stage files', () => {
  it('deploy/default.json is the example world, valid for any stage but prod', () => {
    const config = loadStageConfig(ROOT, 'alice', existsSync);
    expect(config.file).toBe('deploy/default.json');
    expect(config.exampleEvidence).toHaveLength(3);
    expect(config.settings.TENANT_ACCESS).toEqual([{ principal: '*', enterprises: ['E1001', 'E2002'] }]);
    expect(committed.default?.settings).toEqual(defaultStage.settings);
    expect(config.reservedConcurrency).toEqual({ Diagnose: 10, api: 2 });
  });

  it('deploy/default.json is refused as prod’s settings', () => {
    const error = refusal(() => parseStageConfig(ROOT, 'prod', 'deploy/prod.json', defaultStage));
    expect(error.message).toContain('allowExampleEvidence');
  });

  it('deploy/prod.json refuses to deploy until its evidence is filled in, naming what is missing', () => {
    const error = refusal(() => loadStageConfig(ROOT, 'prod', existsSync));
    expect(error.message).toBe(
      'deploy/prod.json: settings the functions would refuse: BEDROCK_KNOWLEDGE_BASE_ID, LOGS_GROUPS',
    );
  });

  it('deploy/prod.json filled in with real evidence deploys, with no caller allowed until TENANT_ACCESS grants one', () => {
    const filled = {
      ...prodStage,
      settings: { ...prodStage.settings, ...validProduction.settings, TENANT_ACCESS: prodStage.settings.TENANT_ACCESS },
    };
    const config = parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', filled);
    expect(config.settings.TENANT_ACCESS).toEqual([]);
    expect(config.reservedConcurrency).toEqual({ Diagnose: 50, api: 10 });
    expect(config.settings.SEMANTIC_GUARD).toBe('enforce');
  });
});

describe('stageFilePath', () => {
  const only =
    (...present: string[]) =>
    (path: string) =>
      present.some((file) => path === join(ROOT, file));

  it('takes a stage’s own file first, else the default file, but never for prod', () => {
    expect(stageFilePath(ROOT, 'staging', only('deploy/staging.json'))).toBe('deploy/staging.json');
    expect(stageFilePath(ROOT, 'alice', only('deploy/default.json'))).toBe('deploy/default.json');
    expect(refusal(() => stageFilePath(ROOT, 'prod', only('deploy/default.json'))).message).toContain(
      'stage prod has no deploy/prod.json',
    );
  });

  it.each(['../etc/passwd', 'a/b', '', '-x', 'a'.repeat(64)])('refuses the stage name %j', (stage) => {
    expect(refusal(() => stageFilePath(ROOT, stage, () => true)).message).toContain('invalid stage name');
  });
});

describe('buildLogsQueryPermissions', () => {
  const arn = (name: string) => `arn:aws:logs:eu-west-1:123456789012:log-group:${name}`;

  it('scopes StartQuery to the configured log groups, each once, and the query-id actions to *', () => {
    const config = parseStageConfig(ownRoot, 'prod', 'deploy/prod.json', validProduction);
    expect(buildLogsQueryPermissions(config.settings, arn)).toEqual([
      {
        actions: ['logs:StartQuery'],
        resources: [
          'arn:aws:logs:eu-west-1:123456789012:log-group:/ecs/order',
          'arn:aws:logs:eu-west-1:123456789012:log-group:/ecs/order:*',
          'arn:aws:logs:eu-west-1:123456789012:log-group:/ecs/payment',
          'arn:aws:logs:eu-west-1:123456789012:log-group:/ecs/payment:*',
        ],
      },
      { actions: ['logs:GetQueryResults', 'logs:StopQuery'], resources: ['*'] },
    ]);
  });

  it('grants nothing on CloudWatch Logs when the logs are local', () => {
    const config = parseStageConfig(ownRoot, 'alice', 'deploy/default.json', { settings: {} });
    expect(buildLogsQueryPermissions(config.settings, arn)).toEqual([]);
  });
});

describe('ignoredShellSettings', () => {
  it('lists the settings the deploying shell sets, which the deploy no longer reads', () => {
    expect(
      ignoredShellSettings({ LOGS_BACKEND: 'cloudwatch', BATCH_MAX_CONCURRENCY: '4', KNOWLEDGE_DIR: '', PATH: '/bin' }),
    ).toEqual(['LOGS_BACKEND', 'BATCH_MAX_CONCURRENCY']);
  });
});
