/**
 * The characters no text we show may carry as themselves: C0 controls but tab and line feed (ESC, CSI, carriage
 * return…), DEL, the C1 controls, and every bidirectional control — the Arabic letter mark (U+061C), the left-to-right
 * and right-to-left marks (U+200E, U+200F), the embeddings and overrides (U+202A–U+202E) and the isolates
 * (U+2066–U+2069). NOTE: one list for every place that shows or stores text others wrote (a terminal, a page, chat, a
 * feedback entry): a terminal acts on the controls, and the bidirectional ones reorder what a reader sees (a
 * "Trojan Source" line). A single character class: a test is linear in the text.
 */
const CLASS = '[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069]';

/** Whether `text` holds one of the unsafe characters. */
export function hasUnsafeCharacter(text: string): boolean {
  return UNSAFE.test(text);
}

/** `text` with each unsafe character replaced by `replace(character)`. */
export function replaceUnsafeCharacters(text: string, replace: (character: string) => string): string {
  return text.replace(UNSAFE_ALL, replace);
}

const UNSAFE = new RegExp(CLASS);
const UNSAFE_ALL = new RegExp(CLASS, 'g');
