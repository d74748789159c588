/**
 * Type-checks sst.config.ts against SST's platform types. Those types are written by `sst install`, which needs no
 * AWS account and, with these flags, no network beyond the npm registry (about 30 s and 320 MB in .sst/, ignored).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const run = (command: string, args: string[], env: NodeJS.ProcessEnv = process.env) => {
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  if (result.status !== 0) process.exit(result.status ?? 1);
};

if (!existsSync('.sst/platform/config.d.ts')) {
  console.log('installing SST platform types (offline, first run only)');
  run('npx', ['sst', 'install', '--stage', 'ci'], {
    ...process.env,
    SST_TELEMETRY_DISABLED: '1',
    SST_SKIP_DEPENDENCY_CHECK: '1',
    SST_NO_BUN: '1',
  });
}
run('npx', ['tsc', '-p', 'tsconfig.sst.json']);
console.log('sst.config.ts type-checks');
