/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * The Diagnose function and what it runs with: the secrets (the model's key, the judge's, the masking key, the MySQL
 * URL), its permissions beyond the table (Bedrock, CloudWatch Logs), the files it reads (the MySQL catalog, the
 * knowledge index built here, the logs folder) and the functions' build, which every function's code comes from.
 */
import { buildLogsQueryPermissions } from '../stage-config.ts';
import type { Stage } from './stage.ts';
import type { Storage } from './table.ts';

export interface Secrets {
  modelApiKey: sst.Secret;
  judgeApiKey: sst.Secret;
  maskingKey: sst.Secret;
  mysqlUrl: sst.Secret;
}

export function createSecrets(): Secrets {
  const modelApiKey = new sst.Secret('ModelApiKey');
  // The SemanticGuard's own key, for a judge on another provider than the agent's (SEMANTIC_GUARD_MODEL_PROFILE,
  // docs/models.md): `sst secret set JudgeApiKey <key>`. "none" (the default): the judge uses ModelApiKey. Only
  // Diagnose, which runs the judge, links it.
  const judgeApiKey = new sst.Secret('JudgeApiKey', 'none');
  // Each run's masking keys are derived from this secret (`sst secret set MaskingKey <32+ random characters>`): the
  // pseudonyms' HMAC and the seal of the pseudonym map. Only Diagnose (masks), RunFeedback (masks a rating with its
  // run's pseudonyms) and GetRunReveal (opens) link it, and DeliverResults when the stage file opts an enterprise in
  // to the delivery's reveal (`delivery.reveal`).
  const maskingKey = new sst.Secret('MaskingKey');
  // "none" means no MySQL: query_mysql then answers NOT_CONFIGURED.
  const mysqlUrl = new sst.Secret('MysqlUrl', 'none');
  return { modelApiKey, judgeApiKey, maskingKey, mysqlUrl };
}

/** Builds the functions' code (`npm run build:functions`), then the Diagnose function. */
export async function createDiagnose(stage: Stage, storage: Storage, secrets: Secrets): Promise<sst.aws.Function> {
  const { functionCode } = stage.build;
  const { settings, account, region, partition } = stage;
  const environment = { ...stage.environment };
  const permissions: sst.aws.FunctionPermissionArgs[] = [
    ...storage.keyUse(['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*']),
  ];
  if (settings.KNOWLEDGE_BACKEND === 'bedrock') {
    permissions.push({
      actions: ['bedrock:Retrieve'],
      resources: [
        $interpolate`arn:${partition}:bedrock:${region}:${account}:knowledge-base/${settings.BEDROCK_KNOWLEDGE_BASE_ID}`,
      ],
    });
  }
  // StartQuery only on the configured log groups (see buildLogsQueryPermissions for GetQueryResults/StopQuery).
  permissions.push(
    ...buildLogsQueryPermissions(
      settings,
      (name) => $interpolate`arn:${partition}:logs:${region}:${account}:log-group:${name}`,
    ),
  );
  const copyFiles = [{ from: settings.MYSQL_CATALOG_PATH }];
  if (settings.KNOWLEDGE_BACKEND !== 'bedrock') {
    // The runbooks are indexed here, at deploy time: a cold start then loads one file instead of indexing them.
    await stage.build.writeKnowledgeIndex(settings.KNOWLEDGE_DIR, '.data/knowledge-index.bin');
    environment.KNOWLEDGE_INDEX_PATH = '.data/knowledge-index.bin';
    copyFiles.push({ from: '.data/knowledge-index.bin' });
  }
  if (settings.LOGS_BACKEND !== 'cloudwatch') copyFiles.push({ from: settings.LOGS_DIR });

  // Every function's code is its folder from `npm run build:functions` (SST's `bundle` option), built here first:
  // what is deployed is exactly what that build wrote and what bench/lambda-bundle.ts measures.
  const { spawnSync } = await import('node:child_process');
  const built = spawnSync('npm', ['run', '-s', 'build:functions'], { cwd: $cli.paths.root, stdio: 'inherit' });
  if (built.status !== 0) {
    throw new Error('npm run build:functions failed');
  }

  const { modelApiKey, judgeApiKey, mysqlUrl, maskingKey } = secrets;
  return new sst.aws.Function('Diagnose', {
    ...functionCode('Diagnose', $cli.paths.root),
    runtime: 'nodejs24.x',
    architecture: 'arm64',
    // A run is at most 8 model rounds; DeepSeek thinking rounds take 5–30 s each. The run's own deadline is the
    // remaining time minus FLUSH_RESERVE_MS, so the audit is always flushed before Lambda stops the function.
    timeout: '5 minutes',
    // Peak RSS of a full end-to-end diagnosis is about 145 MB (BENCHMARKS.md at ab0baaf). The warm CPU of a run
    // (BENCHMARKS.md, "Warm CPU per function") is about 70 ms of a vCPU: 480 ms at 256 MB's share, 240 ms at 512 MB's,
    // on a run that waits seconds on the model, billed by memory throughout: 512 MB would double the cost for < 7 %.
    memory: '256 MB',
    // NOTE: reserved concurrency (deploy/<stage>.json's `reservedConcurrency`) is a floor and a ceiling: a flood of
    // diagnoses cannot take the account's concurrency from the API, nor the API's from the diagnoses.
    concurrency: { reserved: stage.config.reservedConcurrency.Diagnose },
    link: [storage.table, modelApiKey, judgeApiKey, mysqlUrl, maskingKey],
    environment,
    permissions,
    copyFiles,
    logging: { retention: '3 months', format: 'json' },
  });
}
