/**
 * What the bin prints carries what models and logs wrote (a Draft's conclusion with
 * `ESC[2J` and an OSC 52 clipboard write reached the terminal raw through `diagnose` and `trace`). Every control
 * character but newline and tab, and every bidirectional control, is printed as its `\uXXXX` escape; JSON stays exact.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../packages/cli/src/cli.ts';
import type { CliIo, Command } from '../../../packages/cli/src/command-line.ts';
import { terminalSafe } from '../../../packages/cli/src/command-line.ts';

const ESC = '\u001b';
const HOSTILE = `${ESC}[2J${ESC}[H一切正常\r${ESC}]52;c;cm0gLXJmIH4=${ESC}\\ \u009b31m \u202eevil\u2066 tab\tend\n`;
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters a terminal acts on
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

describe('terminalSafe', () => {
  it('escapes every control a terminal acts on, keeps newline, tab and the text', () => {
    const safe = terminalSafe(HOSTILE);
    expect(safe).not.toMatch(ACTS_ON_TERMINAL);
    expect(safe).toBe(
      '\\u001b[2J\\u001b[H一切正常\\u000d\\u001b]52;c;cm0gLXJmIH4=\\u001b\\ \\u009b31m \\u202eevil\\u2066 tab\tend\n',
    );
  });

  it('leaves JSON output the same value', () => {
    const value = { conclusion: HOSTILE };
    expect(JSON.parse(terminalSafe(JSON.stringify(value)))).toEqual(value);
  });
});

describe('runCli', () => {
  it("passes every command's stdout through terminalSafe", async () => {
    const printed: string[] = [];
    const io = { stdout: (text: string) => printed.push(text), stderr: () => undefined, env: {} } as unknown as CliIo;
    const echo: Command = {
      name: 'echo',
      summary: 'prints a hostile text',
      synopsis: '',
      description: [],
      options: [],
      examples: [],
      exitCodes: [],
      settings: [],
      run: async (_parsed, commandIo) => {
        commandIo.stdout(HOSTILE);
        return 0;
      },
    };
    expect(await runCli(['echo'], io, [echo])).toBe(0);
    expect(printed.join('')).not.toMatch(ACTS_ON_TERMINAL);
    expect(printed.join('')).toContain('一切正常');
  });
});

describe('RUN_ID_FORM', () => {
  it('says what the core accepts as a run id (a colon is not; 80 characters are the most)', async () => {
    const { RUN_ID_FORM } = await import('../../../packages/cli/src/command-line.ts');
    const { isRunId } = await import('../../../packages/core/src/run/ids.ts');
    expect(RUN_ID_FORM).not.toContain(':');
    expect(RUN_ID_FORM).toContain('80');
    expect([
      isRunId('a:b'),
      isRunId('a'.repeat(80)),
      isRunId('a'.repeat(81)),
      isRunId('_a'),
      isRunId('a_b.c-d'),
    ]).toEqual([false, true, false, false, true]);
  });
});
