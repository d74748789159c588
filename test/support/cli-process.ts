import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = 'packages/cli/src/main.ts';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The `diagnosis` bin in a child process from the repository's root, with only PATH and HOME of this process's
 * environment and `environment` (a test's DynamoDB Local, table and data folder).
 */
export function runBin(args: string[], environment: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...environment },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((done) => child.on('exit', (code) => done({ code, stdout, stderr })));
}
