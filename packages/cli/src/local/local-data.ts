/**
 * Where this machine's local data lives: the project's folder, the data folder (`DIAGNOSIS_LOCAL_DATA`, else `.data`
 * in the project) and the functions' log files in it. Apart from the local runtime, so a command that only needs a
 * path (`local status`, the log file of `serve`) does not load the runtime.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIo } from '../command-line.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '../../../..');

/** Where local runs keep their data (DIAGNOSIS_LOCAL_DATA, else `.data` in the project). */
export function localDataDir(env: CliIo['env']): string {
  return resolve(env.DIAGNOSIS_LOCAL_DATA || resolve(REPO_ROOT, '.data'));
}

/** The function's log file of the day: JSON lines (ids, statuses, codes, counters; never texts or evidence). */
export function localLogDestination(
  env: CliIo['env'],
  name = 'diagnose',
): { path: string; write: (line: string) => void } {
  const directory = resolve(localDataDir(env), 'logs');
  const path = resolve(directory, `${name}-${new Date().toISOString().slice(0, 10)}.jsonl`);
  return {
    path,
    write: (line: string) => {
      mkdirSync(directory, { recursive: true });
      appendFileSync(path, `${line}\n`);
    },
  };
}
