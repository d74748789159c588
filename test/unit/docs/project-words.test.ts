/**
 * The project speaks of the project alone: no tracked text says how the work on it was organised — numbered work
 * steps ("stop 41"), review turns, worktrees and branch names, who ran what beside whom, who found a defect. A
 * comment, test, page or benchmark says what the code does, what was measured, on which commit, when. The product's
 * own words stay free: a session (`sessionId`, `continueSession`, "runs of this session"), a previous turn, a model
 * round, a rule such as R-2031, an issue number naming a requirement ("issue 25", "#43").
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Each refused wording, named for the message. Case-insensitive; whole words. */
const PROCESS_WORDS: ReadonlyArray<readonly [string, RegExp]> = [
  ['a numbered work step', /\bstop \d+\b/i],
  ['a numbered turn', /\bturn \d+\b(?![:.]\d)/i],
  ['a turn of the work', /\b(?:a|one|two|three|the last|the previous) turns? ago\b|\breview turns?\b/i],
  ['a worktree', /\bworktrees?\b/i],
  ['a work branch', /\b[hr]-[a-z][a-z0-9]{2,}(?:-[a-z0-9]+)*\b/i],
  ['whose branch', /\b(?:this|that|another|my|our|your|a helper's|each helper's) branch\b/i],
  ['who worked beside whom', /\b(?:other|two|three|four|five|six|seven) (?:helpers|engineers|sessions)\b/i],
  ['who worked beside whom', /\bhelpers'|\bthe lead\b|\bthe lead's\b/i],
  ['who did it', /\bwho (?:ran|did|wrote|measured|found)\b/i],
  ['who found it', /\bfound by (?:(?:a|the) )?(?:[\w-]+ )?(?:review|pass|measuring)\b|\bred-team (?:review|pass)\b/i],
  ['this work session', /\bthis (?:work )?session (?:started|began|measured|ran|found)\b|\ba session ago\b/i],
];

/** Files that quote the refused words to test their refusal. */
const QUOTING = new Set(['test/unit/docs/project-words.test.ts']);

/** The files a command writes: marked generated (folded in review, `-diff`), their inputs are what is read. */
const GENERATED = [
  'test/mutation/stryker-incremental.json',
  'docs/settings.md',
  'packages/core/src/run/zone-offsets.ts',
  'packages/core/src/tools/adapters/word-characters.ts',
  'packages/core/src/draft/diagnosis-draft-json-schema.ts',
  'packages/core/src/tools/tool-json-schemas.ts',
  'examples/logs/order-service.jsonl',
  'examples/mysql/seed.sql',
  'eval/scenarios/red-herring-kafka/world/personal-data.json',
];

const git = (args: string[], input?: string) =>
  execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, input });

/** Each tracked file's attributes `name` as git reports them: `set`, `unset`, `unspecified` or a value. */
function attribute(files: string[], name: string): Map<string, string> {
  const answer = git(['check-attr', '--stdin', '-z', name], files.join('\0'));
  const fields = answer.split('\0');
  const values = new Map<string, string>();
  for (let index = 0; index + 2 < fields.length; index += 3) values.set(fields[index] ?? '', fields[index + 2] ?? '');
  return values;
}

/** Every place `text` uses a refused wording: `line: name: "words"`. */
function processWords(text: string): string[] {
  return text.split('\n').flatMap((line, index) =>
    PROCESS_WORDS.flatMap(([name, pattern]) => {
      const found = pattern.exec(line);
      return found === null ? [] : [`${index + 1}: ${name}: "${found[0]}"`];
    }),
  );
}

describe('the project speaks of the project alone', () => {
  it('refuses the words of how the work was done in every tracked text file (generated files: their sources)', () => {
    const files = git(['ls-files', '-z'])
      .split('\0')
      .filter((file) => file !== '' && !QUOTING.has(file));
    const generated = attribute(files, 'linguist-generated');
    const found = files
      .filter((file) => generated.get(file) !== 'true')
      .flatMap((file) => {
        const bytes = readFileSync(join(ROOT, file));
        if (bytes.subarray(0, 8000).includes(0)) return [];
        return processWords(bytes.toString('utf8')).map((place) => `${file}:${place}`);
      });

    expect(found).toEqual([]);
  });

  it('finds each refused wording, and leaves the product’s own words alone', () => {
    const offenders = [
      'Measured in stop 41, on the tree of turn 5.',
      'The judge changed a turn ago; a review turn found it.',
      'Run in its own worktree, on branch h-perf (merged from r-e2e).',
      'Stands in for the index of another branch.',
      'At load 20, beside seven helpers; the helpers’ suites and the lead ran too.',
      'I know who ran it: three engineers.',
      'Found by the red-team review: a forged cursor. Also found by a red-team pass.',
      'This session measured 220 ms.',
    ].join('\n');

    expect(processWords(offenders)).toEqual([
      '1: a numbered work step: "stop 41"',
      '1: a numbered turn: "turn 5"',
      '2: a turn of the work: "a turn ago"',
      '3: a worktree: "worktree"',
      '3: a work branch: "h-perf"',
      '4: whose branch: "another branch"',
      '5: who worked beside whom: "seven helpers"',
      '5: who worked beside whom: "the lead"',
      '6: who worked beside whom: "three engineers"',
      '6: who did it: "who ran"',
      '7: who found it: "Found by the red-team review"',
      '8: this work session: "This session measured"',
    ]);
    expect(
      processWords(
        [
          'A follow-up continues the session (`continueSession`, `sessionId`): only runs of this session are listed.',
          'The previous turn is masked; round 5 stops with STOP_REQUIRED; risk rule R-2031; a-b-c-d-e-f-g-h-i-jx.',
          'Issue 25 (#43) asks for it; the tokenizer turns 14:05 into 3 tokens; the masking session of a run.',
          'The helpers the session runs every text through; test/support/ holds helpers.',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('marks every file a command writes as generated, so its diff stays out of review', () => {
    const generated = attribute(GENERATED, 'linguist-generated');
    const diff = attribute(GENERATED, 'diff');

    expect(GENERATED.filter((file) => generated.get(file) !== 'true' || diff.get(file) !== 'unset')).toEqual([]);
  });
});
