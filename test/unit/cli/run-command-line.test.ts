import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CliIo, Command, ParsedArgs } from '../../../packages/cli/src/command-line.ts';
import { type CommandLine, runCommandLine } from '../../../packages/cli/src/run-command-line.ts';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'command-line-'));
});
afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** A command that records what it was given and returns exit code 5. */
function recordingCommand(): { command: Command; calls: { args: ParsedArgs; io: CliIo }[] } {
  const calls: { args: ParsedArgs; io: CliIo }[] = [];
  const command: Command = {
    name: 'probe',
    summary: 'records its arguments and environment',
    synopsis: '<word>',
    description: [],
    options: [{ name: 'flag', type: 'boolean', description: 'a flag' }],
    examples: [],
    exitCodes: [],
    settings: [],
    run: async (args, io) => {
      calls.push({ args, io });
      io.stdout(`ran ${args.positionals.join(' ')}\n`);
      return 5;
    },
  };
  return { command, calls };
}

function line(argv: string[], env: Record<string, string | undefined>, written: { stdout: string; stderr: string }) {
  return {
    argv,
    env,
    cwd: folder,
    stdout: (text) => {
      written.stdout += text;
    },
    stderr: (text) => {
      written.stderr += text;
    },
    stderrIsTTY: false,
    onInterrupt: () => () => undefined,
  } satisfies CommandLine;
}

describe('runCommandLine', () => {
  it("runs the command with the working directory's .env under the environment and returns its exit code", async () => {
    writeFileSync(join(folder, '.env'), 'FROM_FILE=file\nBOTH=file\n');
    const { command, calls } = recordingCommand();
    const written = { stdout: '', stderr: '' };
    const env = Object.freeze({ BOTH: 'environment', ONLY_ENV: 'environment' });

    const code = await runCommandLine(line(['probe', 'word', '--flag'], env, written), [command]);

    expect(code).toBe(5);
    expect(written).toEqual({ stdout: 'ran word\n', stderr: '' });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args).toEqual({ values: { flag: true }, positionals: ['word'] });
    expect(calls[0]?.io.env).toMatchObject({ FROM_FILE: 'file', BOTH: 'environment', ONLY_ENV: 'environment' });
    expect([...(calls[0]?.io.dotEnvKeys ?? [])].sort()).toEqual(['BOTH', 'FROM_FILE']);
    expect(env).toEqual({ BOTH: 'environment', ONLY_ENV: 'environment' });
  });

  it('refuses a .env it cannot take with one line on stderr and exit 78, running nothing', async () => {
    writeFileSync(join(folder, '.env'), 'SECRET_NAME=\n');
    const { command, calls } = recordingCommand();
    const written = { stdout: '', stderr: '' };

    const code = await runCommandLine(line(['probe', 'word'], {}, written), [command]);

    expect(code).toBe(78);
    expect(written).toEqual({
      stdout: '',
      stderr:
        'diagnosis: .env gives SECRET_NAME an empty value: give it a value, or delete the line to use the default\n',
    });
    expect(calls).toEqual([]);
  });

  it('answers a usage error of the command line as the bin does: exit 64, one line, the command not run', async () => {
    const { command, calls } = recordingCommand();
    const written = { stdout: '', stderr: '' };

    const code = await runCommandLine(line(['probe', '--unknown'], {}, written), [command]);

    expect(code).toBe(64);
    expect(written.stdout).toBe('');
    expect(written.stderr).toMatch(/^diagnosis probe: unknown option --unknown[^\n]*\n$/);
    expect(calls).toEqual([]);
  });
});
