/**
 * What a test run's output must not carry: a function's EMF record or an ERROR (or CRITICAL) log line that no test
 * captured. Logs of a test belong to the test that asserts on them — through an injected `LogDestination` or the e2e
 * world's `logs` — so such a line in the output is a record nobody checked, and it buries a real failure's output.
 */
export const STRAY_RECORD = /"_aws"\s*:|"level"\s*:\s*"(?:ERROR|CRITICAL)"/;

const GUARDED = Symbol.for('diagnosis.test.stray-record-guard');
const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

type Guarded = { [GUARDED]?: true };
type ConsoleLike = Record<(typeof METHODS)[number], (...parts: unknown[]) => void>;
type StreamLike = { write: (...args: never[]) => boolean };

/**
 * Wraps the console methods and the streams' `write` so every text they print that matches `STRAY_RECORD` is pushed
 * onto `seen`, then printed as before (nothing is hidden). Wraps each function once: a second call over the same
 * outputs adds nothing, so a setup file run before every test file of a shared worker does not stack wrappers.
 */
export function guardAgainstStrayRecords(outputs: { console: ConsoleLike; streams: StreamLike[] }, seen: string[]) {
  const check = (text: string) => {
    if (STRAY_RECORD.test(text)) seen.push(text.length > 300 ? `${text.slice(0, 300)}…` : text);
  };
  for (const method of METHODS) {
    const original = outputs.console[method] as ConsoleLike[typeof method] & Guarded;
    if (original[GUARDED]) continue;
    const wrapped = Object.assign(
      (...parts: unknown[]) => {
        check(parts.map(String).join(' '));
        original.apply(outputs.console, parts);
      },
      { [GUARDED]: true as const },
    );
    outputs.console[method] = wrapped;
  }
  for (const stream of outputs.streams) {
    const original = stream.write as StreamLike['write'] & Guarded;
    if (original[GUARDED]) continue;
    stream.write = Object.assign(
      (...args: never[]) => {
        const [chunk] = args as unknown[];
        if (typeof chunk === 'string' || chunk instanceof Uint8Array) check(Buffer.from(chunk).toString('utf8'));
        return original.apply(stream, args);
      },
      { [GUARDED]: true as const },
    );
  }
}
