/**
 * The functions' Powertools output (JSON log lines and EMF records), kept for the test that reads it instead of
 * reaching the test run's output. The e2e world's handlers are the real Lambda entries, which make their logger and
 * metrics at cold start with no log sink to inject: with `POWERTOOLS_DEV=true` (set by the world) Powertools writes
 * through the global console, one call per record, and this takes those calls. Every other console call (a test's
 * own warning, a library's message) goes on to the console as before: nothing else is hidden.
 */
const METHODS = ['log', 'info', 'warn', 'error', 'debug'] as const;

export interface FunctionLogs {
  /** Every record printed since the capture began, as Powertools wrote it (pretty-printed JSON in dev mode). */
  readonly lines: string[];
  /** Puts the console methods back as they were. */
  restore(): void;
}

/** Whether one console call is a Powertools record: a JSON object with a log level and service, or an EMF record. */
export function isFunctionRecord(parts: readonly unknown[]): boolean {
  const [text] = parts;
  if (parts.length !== 1 || typeof text !== 'string' || !text.startsWith('{')) return false;
  try {
    const record = JSON.parse(text) as Record<string, unknown>;
    return '_aws' in record || (typeof record.level === 'string' && 'service' in record && 'timestamp' in record);
  } catch {
    return false;
  }
}

type ConsoleLike = Record<(typeof METHODS)[number], (...parts: unknown[]) => void>;

/** Takes the Powertools records printed through `target` (the global console by default) until `restore()`. */
export function captureFunctionLogs(target: ConsoleLike = console): FunctionLogs {
  const lines: string[] = [];
  const original = Object.fromEntries(METHODS.map((method) => [method, target[method]])) as ConsoleLike;
  for (const method of METHODS) {
    target[method] = (...parts: unknown[]) => {
      if (isFunctionRecord(parts)) lines.push(String(parts[0]));
      else original[method].apply(target, parts);
    };
  }
  return {
    lines,
    restore() {
      for (const method of METHODS) target[method] = original[method];
    },
  };
}
