/// <reference path="../../.sst/platform/config.d.ts" />
/**
 * The stage being deployed: its settings from its committed file, deploy/<stage>.json (deploy/default.json for a
 * stage without one, never for prod), checked with the functions' own settings parse; not from the deploying shell.
 * What every module of deploy/resources/ builds from: the stage file, the functions' environment, and the account,
 * region and partition that ARNs are written with.
 */
import { ignoredShellSettings, loadStageConfig, PRODUCTION_STAGE, type StageConfig } from '../stage-config.ts';

/**
 * What the deploy builds with, from scripts/ (sst.config.ts passes it in, so the resource modules import no script):
 * each function's code from `npm run build:functions` (SST's `bundle` option; its only code) and the knowledge index.
 */
export interface StageBuild {
  /** `scripts/lambda-functions.ts`'s `functionCode`: the `bundle` and `handler` options of a deployed function. */
  functionCode(name: string, root: string): Record<'bundle' | 'handler', string>;
  writeKnowledgeIndex(knowledgeDir: string, out: string): Promise<unknown>;
}

export interface Stage {
  production: boolean;
  config: StageConfig;
  settings: StageConfig['settings'];
  /** Diagnose's environment: the stage file's settings and the SemanticGuard's mode, as strings. */
  environment: Record<string, string>;
  /** The stage's TENANT_ACCESS, when its file sets one: every function that checks a caller's tenant gets it. */
  tenantAccess: { TENANT_ACCESS?: string };
  account: $util.Output<string>;
  region: $util.Output<string>;
  partition: $util.Output<string>;
  build: StageBuild;
}

/** Reads and checks the stage file, and says what the deployer should know (ignored shell settings, open access). */
export function loadStage(production: boolean, build: StageBuild): Stage {
  // NOTE: the app's root as SST resolves `copyFiles` against it (`$cli.paths.root`), whatever folder you deploy from.
  const stageConfig = loadStageConfig($cli.paths.root, $app.stage);
  if (production !== (PRODUCTION_STAGE === $app.stage)) throw new Error('app() and deploy/ disagree on prod');
  console.log(`stage ${$app.stage}: settings from ${stageConfig.file}`);
  const ignored = ignoredShellSettings(process.env);
  if (ignored.length > 0) {
    console.warn(`!!! ignored from your shell (settings come from ${stageConfig.file} now): ${ignored.join(', ')}`);
  }
  if (stageConfig.exampleEvidence.length > 0) {
    console.warn(`!!! stage ${$app.stage} deploys the example world: ${stageConfig.exampleEvidence.join(', ')}`);
  }
  // NOTE: no NODE_OPTIONS=--enable-source-maps: no source maps are shipped (scripts/build-functions.ts).
  const environment: Record<string, string> = {};
  Object.assign(environment, stageConfig.environment);
  // The SemanticGuard is always named in a deployment: `enforce` unless the stage file chose `shadow` or `off`.
  environment.SEMANTIC_GUARD = stageConfig.settings.SEMANTIC_GUARD;
  if (stageConfig.settings.TENANT_ACCESS === undefined) {
    console.warn(
      [
        '',
        '!!! TENANT_ACCESS is not set: every IAM principal allowed on the API may use EVERY enterprise and read',
        `!!! every run. Set it in ${stageConfig.file} before real tenants use this stage (README, "Security model");`,
        '!!! a single-tenant stage can say so with "TENANT_ACCESS": [{ "principal": "*", "enterprises": ["E1001"] }].',
        '',
      ].join('\n'),
    );
  }
  return {
    production,
    config: stageConfig,
    settings: stageConfig.settings,
    environment,
    tenantAccess: environment.TENANT_ACCESS === undefined ? {} : { TENANT_ACCESS: environment.TENANT_ACCESS },
    account: aws.getCallerIdentityOutput().accountId,
    region: aws.getRegionOutput().region,
    partition: aws.getPartitionOutput().partition,
    build,
  };
}

/** The settings of `names` that the stage's environment holds, to pass on as they are. */
export function pickSettings(stage: Stage, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.flatMap((name) => (stage.environment[name] === undefined ? [] : [[name, stage.environment[name]]])),
  );
}
