/**
 * One list of the characters no shown text may carry as themselves (the review found three copies that had drifted:
 * the command line's argument echo and the core's `printable` passed the bidirectional marks U+061C, U+200E and
 * U+200F, and feedback texts accepted them).
 */
import { describe, expect, it } from 'vitest';
import { printable as cliPrintable, terminalSafe } from '../../../../packages/cli/src/command-line.ts';
import { printable } from '../../../../packages/core/src/report/describe-tool-call.ts';
import { hasUnsafeCharacter, replaceUnsafeCharacters } from '../../../../packages/core/src/run/unsafe-characters.ts';
import { parseFeedbackInput } from '../../../../packages/core/src/service/record-feedback.ts';

const BIDI_MARKS = ['\u061c', '\u200e', '\u200f'];
const UNSAFE = ['\u0000', '\u0007', '\u000b', '\u000d', '\u001b', '\u007f', '\u0085', '\u009b', '\u202a', '\u202e'];
const ALL_UNSAFE = [...UNSAFE, ...BIDI_MARKS, '\u2066', '\u2069'];

describe('the unsafe characters', () => {
  it('are the controls (but tab and newline) and every bidirectional control', () => {
    for (const character of ALL_UNSAFE) expect(hasUnsafeCharacter(`a${character}b`), codePoint(character)).toBe(true);
    for (const text of ['tab\tand\nnewline', '一切正常 ✓', 'ZWJ 👩‍💻', 'É\u00a0x'])
      expect(hasUnsafeCharacter(text)).toBe(false);
  });

  it('are replaced one by one, everything else kept', () => {
    expect(replaceUnsafeCharacters(`x${ALL_UNSAFE.join('')}y\tz`, () => '_')).toBe(
      `x${'_'.repeat(ALL_UNSAFE.length)}y\tz`,
    );
  });

  it('are never shown by the core printable, the terminal, nor the command line’s argument echo', () => {
    const text = `evil${ALL_UNSAFE.join('')}end`;
    expect(hasUnsafeCharacter(printable(text))).toBe(false);
    expect(hasUnsafeCharacter(terminalSafe(text))).toBe(false);
    expect(hasUnsafeCharacter(cliPrintable(text))).toBe(false);
    for (const mark of BIDI_MARKS) {
      expect(printable(`a${mark}b`)).toBe('a\uFFFDb');
      expect(cliPrintable(`a${mark}b`)).toBe('a?b');
      expect(terminalSafe(`a${mark}b`)).toBe(`a\\u${mark.charCodeAt(0).toString(16).padStart(4, '0')}b`);
    }
  });

  it('are refused in a feedback text, naming the field', () => {
    for (const mark of ALL_UNSAFE) {
      expect(() => parseFeedbackInput({ verdict: 'CORRECT', note: `ok${mark}` }), codePoint(mark)).toThrow(/note/);
    }
    expect(parseFeedbackInput({ verdict: 'CORRECT', note: '根因确认\n第二行\t缩进' }).note).toBe(
      '根因确认\n第二行\t缩进',
    );
  });
});

function codePoint(character: string): string {
  return `U+${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
