/**
 * A file that grows past 300 lines is usually two concepts (docs/development.md): every TypeScript file of the
 * repository over 300 lines says in its leading comment why it is one file — `over 300 lines on purpose: <why>` (or
 * `a little over 300 lines: <why>`) — or it is split.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const MAX_LINES = 300;

/** The leading comment of a file: its lines before the first line of code (a reference or shebang line included). */
function leadingComment(text: string): string {
  const lines = text.split('\n');
  const end = lines.findIndex((line) => !/^\s*($|\/\/|\/\*|\*|#!)/.test(line));
  return lines.slice(0, end === -1 ? lines.length : end).join('\n');
}

/** Whether a file's leading comment gives the reason it is over 300 lines: the words, then a colon and the reason. */
function statesItsLength(text: string): boolean {
  return /over ~?300 lines[^\n:]*:\s*\S/.test(leadingComment(text));
}

/** Lines as `wc -l` counts them: the newlines. */
const lineCount = (text: string) => text.split('\n').length - 1;

describe('statesItsLength', () => {
  it('accepts a reason in the leading comment and refuses one after the first line of code', () => {
    expect(
      statesItsLength('/**\n * The thing.\n * NOTE: over 300 lines on purpose: one table.\n */\nconst a = 1;\n'),
    ).toBe(true);
    expect(statesItsLength('// NOTE: a little over 300 lines: one story.\nimport x from "y";\n')).toBe(true);
    expect(statesItsLength('import x from "y";\n// NOTE: over 300 lines on purpose: one story.\n')).toBe(false);
    expect(statesItsLength('/** The thing, over 300 lines. */\nconst a = 1;\n')).toBe(false);
  });
});

describe('the TypeScript files', () => {
  it('each over 300 lines states in its leading comment why it is one file', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((file) => file !== '' && !file.includes('node_modules/'));
    expect(files.length).toBeGreaterThan(500);
    const unexplained = files.filter((file) => {
      const text = readFileSync(join(ROOT, file), 'utf8');
      return lineCount(text) > MAX_LINES && !statesItsLength(text);
    });
    expect(unexplained).toEqual([]);
  });
});
