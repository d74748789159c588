import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const MAX_LINES = 500;
/** The last three columns of every table: the tree measured, the day, and what the figure depends on. */
const ROW_TAIL = ['commit', 'date', 'measured'];
const COMMIT = /^([0-9a-f]{7,40})†?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** What a heading of a dated diary carries: a date or a time of day, a numbered work step, a before/after. */
const DIARY_HEADING =
  /\d{4}-\d{2}-\d{2}|\b\d{1,2}:\d{2}\b|\b(stop|issue|turn|round) \d|\b(re-?measured|re-?run|before|after)\b/i;

interface Section {
  heading: string;
  lines: string[];
}

const cells = (row: string) =>
  row
    .slice(1, -1)
    .split(' | ')
    .map((cell) => cell.trim());

function sections(text: string): Section[] {
  const found: Section[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('## ')) found.push({ heading: line.slice(3), lines: [] });
    else found.at(-1)?.lines.push(line);
  }
  return found;
}

/**
 * What keeps BENCHMARKS.md a reference rather than a diary: every subject names its command, every table row its
 * commit, date and what it was measured on, and no heading is dated. Returns one message per problem, and the commits
 * the rows name (checked against the repository separately).
 */
function readBenchmarks(text: string): { problems: string[]; commits: string[] } {
  const problems: string[] = [];
  const commits = new Set<string>();
  for (const line of text.split('\n').filter((line) => /^#+ /.test(line))) {
    if (DIARY_HEADING.test(line)) problems.push(`a dated or process heading: ${line}`);
  }
  for (const { heading, lines } of sections(text)) {
    const rows = lines.filter((line) => line.startsWith('|'));
    if (rows.length === 0) continue;
    if (!lines.some((line) => line.startsWith('Command: `'))) problems.push(`${heading}: no "Command: \`…\`" line`);
    const header = cells(rows[0] ?? '');
    if (header.slice(-ROW_TAIL.length).join(',') !== ROW_TAIL.join(',')) {
      problems.push(`${heading}: a table whose last columns are not ${ROW_TAIL.join(', ')}`);
      continue;
    }
    for (const row of rows.slice(2)) {
      if (/^\|[\s|:-]+\|$/.test(row)) continue;
      const [commit = '', date = '', measured = ''] = cells(row).slice(-ROW_TAIL.length);
      const match = COMMIT.exec(commit);
      if (match?.[1] === undefined) problems.push(`${heading}: a row without a commit: ${row}`);
      else commits.add(match[1]);
      if (!DATE.test(date) || Number.isNaN(Date.parse(date))) problems.push(`${heading}: a row without a date: ${row}`);
      if (measured === '') problems.push(`${heading}: a row that does not say what it was measured on: ${row}`);
    }
  }
  return { problems, commits: [...commits] };
}

const isAncestor = (commit: string) => {
  try {
    execFileSync('git', ['merge-base', '--is-ancestor', commit, 'HEAD'], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

describe('BENCHMARKS.md', () => {
  const text = readFileSync(join(ROOT, 'BENCHMARKS.md'), 'utf8');

  it(`stays a reference of at most ${MAX_LINES} lines`, () => {
    expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(MAX_LINES);
  });

  it('names a command for every subject and a commit, date and state for every figure, under undated headings', () => {
    expect(readBenchmarks(text).problems).toEqual([]);
  });

  it("names only commits of this repository's history", () => {
    const { commits } = readBenchmarks(text);

    expect(commits.length).toBeGreaterThan(0);
    expect(commits.filter((commit) => !isAncestor(commit))).toEqual([]);
  });

  it('refuses a diary: a dated heading, a subject without its command, a row without its commit or date', () => {
    const diary = [
      '## Cold start, re-measured 2026-12-01 at 17:40',
      '',
      '| function | instructions | commit | date | measured |',
      '| --- | --- | --- | --- | --- |',
      '| Diagnose | 556.2 M | yesterday | 2026-12-03 | callgrind |',
      '| GetRun | 351.1 M | 07da8ff | Tuesday | callgrind |',
      '',
      '## Round 2: the alarm path',
      '',
      'Command: `node bench/alarm-to-message.ts 5`',
      '',
      '| run | overhead |',
      '| --- | --- |',
      '| 1 | 841 ms |',
    ].join('\n');

    expect(readBenchmarks(diary).problems).toEqual([
      'a dated or process heading: ## Cold start, re-measured 2026-12-01 at 17:40',
      'a dated or process heading: ## Round 2: the alarm path',
      'Cold start, re-measured 2026-12-01 at 17:40: no "Command: `…`" line',
      'Cold start, re-measured 2026-12-01 at 17:40: a row without a commit: | Diagnose | 556.2 M | yesterday | 2026-12-03 | callgrind |',
      'Cold start, re-measured 2026-12-01 at 17:40: a row without a date: | GetRun | 351.1 M | 07da8ff | Tuesday | callgrind |',
      'Round 2: the alarm path: a table whose last columns are not commit, date, measured',
    ]);
  });

  it('accepts a commit that recorded a figure (†) and refuses one that is not in the history', () => {
    const page = [
      '## Subject',
      'Command: `node bench/x.ts`',
      '| figure | value | commit | date | measured |',
      '| --- | --- | --- | --- | --- |',
      '| a | 1 | eeb1e39† | 2026-12-03 | count |',
    ].join('\n');

    expect(readBenchmarks(page)).toEqual({ problems: [], commits: ['eeb1e39'] });
    expect(isAncestor('0000000000000000000000000000000000000000')).toBe(false);
  });
});
