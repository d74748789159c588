/**
 * `npm run typecheck`: the project (tsconfig.json), then sst.config.ts against SST's platform types
 * (tsconfig.sst.json). Those types are written by `sst install`, which needs no AWS account and, with these flags, no
 * network beyond the npm registry (about 30 s and 320 MB in .sst/, ignored).
 * NOTE: the install waits mostly on the registry, so on a fresh clone (CI) it runs beside the project's check rather
 * than before it. Both checks always run; the command fails when either does.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Runs a command with this terminal; resolves with its exit code (1 when it could not start or was killed). */
function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    child.on('error', () => resolve(1));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function installSstTypes(): Promise<number> {
  if (existsSync('.sst/platform/config.d.ts')) return 0;
  console.log('installing SST platform types (offline, first run only)');
  return run('npx', ['sst', 'install', '--stage', 'ci'], {
    ...process.env,
    SST_TELEMETRY_DISABLED: '1',
    SST_SKIP_DEPENDENCY_CHECK: '1',
    SST_NO_BUN: '1',
  });
}

const [project, installed] = await Promise.all([
  run('npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']),
  installSstTypes(),
]);
if (installed !== 0) console.log('sst install failed: sst.config.ts is not type-checked');
const sst = installed === 0 ? await run('npx', ['tsc', '-p', 'tsconfig.sst.json']) : installed;
if (sst === 0) console.log('sst.config.ts type-checks');
if (project !== 0 || sst !== 0) process.exit(project !== 0 ? project : sst);
