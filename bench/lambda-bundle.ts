/**
 * The Diagnose Lambda as SST builds it (esbuild, minified ESM, SST's createRequire banner): bundle size, cold init
 * (a fresh Node process importing the bundle and building its dependencies, median of 20) against a baseline that only
 * builds a DynamoDB client, and the peak RSS of a full end-to-end diagnosis through the bundle.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ensureDiagnosisTable } from '@diagnosis/core/store';
import { startDynamoDbLocal } from '@diagnosis/devkit';
import { build, type Metafile } from 'esbuild';
import { writeKnowledgeIndex } from '../scripts/build-knowledge-index.ts';

const SST_BANNER =
  "import { createRequire as topLevelCreateRequire } from 'module';const require = topLevelCreateRequire(import.meta.url);";
const OUT = resolve('.data/bench');

/** Builds like SST with `nodejs: { format: 'esm', minify: true, splitting: true }`: lazily imported code in chunks. */
async function bundle(entry: string, outdir: string): Promise<Metafile> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    minify: true,
    splitting: true,
    outdir,
    outExtension: { '.js': '.mjs' },
    metafile: true,
    banner: { js: SST_BANNER },
    logLevel: 'silent',
  });
  return result.metafile;
}

/** The entry file and every chunk it imports statically: what a cold start loads before any dynamic import. */
function eagerOutputs(metafile: Metafile, entryOutput: string): string[] {
  const seen = new Set<string>();
  const visit = (output: string) => {
    if (seen.has(output)) return;
    seen.add(output);
    for (const imported of metafile.outputs[output]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
    }
  };
  visit(entryOutput);
  return [...seen];
}

function largestPackages(metafile: Metafile, outputs: string[], count: number): string {
  const sizes = new Map<string, number>();
  for (const output of outputs) {
    for (const [path, info] of Object.entries(metafile.outputs[output]?.inputs ?? {})) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const key = match?.[1] ?? 'project code';
      sizes.set(key, (sizes.get(key) ?? 0) + info.bytesInOutput);
    }
  }
  return [...sizes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KB`)
    .join(', ');
}

function coldInit(bundlePath: string, environment: NodeJS.ProcessEnv): { initMs: number; processMs: number } {
  const script = `const t = performance.now(); await import(${JSON.stringify(bundlePath)}); console.log(performance.now() - t);`;
  const begin = performance.now();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: environment,
    encoding: 'utf8',
  });
  const processMs = performance.now() - begin;
  if (child.status !== 0) throw new Error(`cold init failed: ${child.stderr.slice(0, 500)}`);
  return { initMs: Number(child.stdout.trim()), processMs };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

export async function benchLambdaBundle(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const diagnosePath = `${OUT}/diagnose/diagnose.mjs`;
  const baselinePath = `${OUT}/baseline/baseline-handler.mjs`;
  const metafile = await bundle('functions/diagnose.ts', '.data/bench/diagnose');
  const baseline = await bundle('bench/fixtures/baseline-handler.ts', '.data/bench/baseline');
  const size = (outputs: string[], meta: Metafile) =>
    outputs.reduce((sum, output) => sum + (meta.outputs[output]?.bytes ?? 0), 0);
  const eager = eagerOutputs(metafile, '.data/bench/diagnose/diagnose.mjs');
  const all = Object.keys(metafile.outputs).filter((output) => output.endsWith('.mjs'));
  const eagerSize = size(eager, metafile);
  const mib = (bytes: number) => `${(bytes / 1_048_576).toFixed(2)} MiB`;
  console.log('\n## Diagnose Lambda bundle (esbuild as SST builds it: minified ESM, node24, splitting)');
  console.log(
    `loaded at cold start ${mib(eagerSize)} in ${eager.length} files   (target ≤ 1.5 MB: ${eagerSize <= 1_500_000 ? 'met' : 'MISSED'})   all ${all.length} files ${mib(size(all, metafile))}   baseline ${(size(Object.keys(baseline.outputs), baseline) / 1024).toFixed(0)} KB`,
  );
  console.log(`largest parts loaded at cold start: ${largestPackages(metafile, eager, 8)}`);
  const lazy = all.filter((output) => !eager.includes(output));
  console.log(`loaded only when configured (MySQL, CloudWatch, Bedrock): ${largestPackages(metafile, lazy, 6)}`);

  const environment = {
    ...process.env,
    DIAGNOSIS_TABLE_NAME: 'bench-table',
    DIAGNOSIS_MODEL_API_KEY: 'sk-bench',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
  };
  const runs = Number(process.env.BENCH_COLD_RUNS ?? 20);
  // As deployed: sst.config.ts prebuilds the knowledge index and sets KNOWLEDGE_INDEX_PATH.
  await writeKnowledgeIndex('examples/knowledge', `${OUT}/knowledge-index.json`);
  const deployed = { ...environment, KNOWLEDGE_INDEX_PATH: `${OUT}/knowledge-index.json` };
  const withMysql = { ...deployed, MYSQL_URL: 'mysql://bench:bench@127.0.0.1:1/none' };
  const samples = {
    deployed: [] as number[],
    unindexed: [] as number[],
    mysql: [] as number[],
    baseline: [] as number[],
    deployedProcess: [] as number[],
    baselineProcess: [] as number[],
  };
  for (let run = 0; run < runs; run += 1) {
    const diagnose = coldInit(diagnosePath, deployed);
    const baselineRun = coldInit(baselinePath, environment);
    samples.deployed.push(diagnose.initMs);
    samples.deployedProcess.push(diagnose.processMs);
    samples.baseline.push(baselineRun.initMs);
    samples.baselineProcess.push(baselineRun.processMs);
    samples.unindexed.push(coldInit(diagnosePath, environment).initMs);
    samples.mysql.push(coldInit(diagnosePath, withMysql).initMs);
  }
  const baselineMs = median(samples.baseline);
  const ratio = median(samples.deployed) / baselineMs;
  console.log(
    `cold init (import + dependencies, as deployed), median of ${runs}: diagnose ${median(samples.deployed).toFixed(0)} ms   baseline ${baselineMs.toFixed(0)} ms   ratio ${ratio.toFixed(2)}x   (target ≤ 2x: ${ratio <= 2 ? 'met' : 'MISSED'})`,
  );
  console.log(
    `  runbooks indexed at cold start instead: ${median(samples.unindexed).toFixed(0)} ms (${(median(samples.unindexed) / baselineMs).toFixed(2)}x)   with MYSQL_URL set (mysql2 and the SQL grammar loaded, catalog parsed): ${median(samples.mysql).toFixed(0)} ms (${(median(samples.mysql) / baselineMs).toFixed(2)}x)`,
  );
  console.log(
    `whole process (node start to exit), median: diagnose ${median(samples.deployedProcess).toFixed(0)} ms   baseline ${median(samples.baselineProcess).toFixed(0)} ms`,
  );

  const engine = await startDynamoDbLocal();
  try {
    const client = new DynamoDBClient({
      endpoint: engine.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    await ensureDiagnosisTable(client, 'bench-table');
    client.destroy();
    const child = spawnSync(process.execPath, ['bench/fixtures/rss-diagnosis.ts', diagnosePath], {
      env: { ...environment, DYNAMODB_ENDPOINT: engine.endpoint, FLUSH_RESERVE_MS: '500' },
      encoding: 'utf8',
    });
    if (child.status !== 0) throw new Error(`end-to-end run failed: ${child.stderr.slice(0, 500)}`);
    const { status, maxRssMb } = JSON.parse(child.stdout.trim().split('\n').at(-1) ?? '{}') as {
      status: string;
      maxRssMb: number;
    };
    console.log(
      `peak RSS of a full E1001 diagnosis through the bundle: ${maxRssMb} MB (${status})   (target ≤ 200 MB: ${maxRssMb <= 200 ? 'met' : 'MISSED'})`,
    );
  } finally {
    await engine.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchLambdaBundle();
