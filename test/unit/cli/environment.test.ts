import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliError } from '../../../packages/cli/src/command-line.ts';
import { loadDotEnv, withDotEnv } from '../../../packages/cli/src/environment.ts';
import { knownSettingNames } from '../../../packages/cli/src/setting-names.ts';

const ROOT = join(import.meta.dirname, '../../..');

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'dot-env-'));
});
afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

describe('loadDotEnv', () => {
  it('refuses an empty value rather than read it as the default, naming the key, exit 78', () => {
    writeFileSync(join(folder, '.env'), 'DIAGNOSIS_MODEL_API_KEY=sk-1\nDIAGNOSIS_MODEL_BASE_URL=\n');
    const refusal = (() => {
      try {
        loadDotEnv(folder);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(CliError);
    expect((refusal as CliError).exitCode).toBe(78);
    expect((refusal as CliError).message).toBe(
      '.env gives DIAGNOSIS_MODEL_BASE_URL an empty value: give it a value, or delete the line to use the default',
    );
    expect((refusal as CliError).message).not.toContain('sk-1');
  });
});

describe('withDotEnv', () => {
  it('puts the environment over the file and says which names the file gave', () => {
    writeFileSync(join(folder, '.env'), 'A_SETTING=from-file\nB_SETTING=from-file\n');
    const { env, fileKeys } = withDotEnv({ B_SETTING: 'from-env' }, folder);
    expect(env).toEqual({ A_SETTING: 'from-file', B_SETTING: 'from-env' });
    expect([...fileKeys].sort()).toEqual(['A_SETTING', 'B_SETTING']);
  });
});

describe('the .env files of the project', () => {
  it('are ignored by git, all but the committed template', () => {
    const ignored = (path: string) => {
      try {
        execFileSync('git', ['check-ignore', '-q', path], { cwd: ROOT });
        return true;
      } catch {
        return false;
      }
    };
    expect(['.env', '.env.local', '.env.production', 'packages/cli/.env'].filter((path) => !ignored(path))).toEqual([]);
    expect(ignored('.env.example')).toBe(false);
  });

  it('template names only settings the project knows, and gives none a value', () => {
    const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
    const named = [...text.matchAll(/^# ([A-Z][A-Z0-9_]*)=/gm)].map(([, name]) => name ?? '');
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((name) => !knownSettingNames().includes(name))).toEqual([]);
    expect(text.split('\n').filter((line) => line !== '' && !line.startsWith('#'))).toEqual([]);
  });
});
