/** Layers of escaping undone: a `\u0040` inside a JSON text inside a JSON string inside a log line is three. */
const ESCAPE_PASSES = 4;
const CONTROL = Object.freeze({ n: '\n', r: '\r', t: '\t' } as const);

/**
 * JSON escapes inside a text decoded (up to {@link ESCAPE_PASSES} layers, for text escaped again and again), so
 * `a\u0040b.cn` or `{\"token\":\"…\"}` inside a log message is seen, and masked, as what it stands for.
 */
export function decodeEscapes(text: string): string {
  let decoded = text;
  // NOTE: built per call (V8 compiles the literal once), so its mutants are tested by the tests that decode.
  const jsonEscape = /\\u([0-9a-fA-F]{4})|\\(["\\/])|\\([nrt])/g;
  for (let pass = 0; pass < ESCAPE_PASSES && decoded.includes('\\'); pass += 1) {
    decoded = decoded.replace(
      jsonEscape,
      // NOTE: exactly one group matched; when neither of the first two did, the third is one of n, r and t.
      (_match, hex: string | undefined, literal: string | undefined, control: keyof typeof CONTROL) =>
        hex !== undefined ? String.fromCharCode(Number.parseInt(hex, 16)) : (literal ?? CONTROL[control]),
    );
  }
  return decoded;
}
