/**
 * Cloud-OpsBench's golden trajectories (`golden-trajectory/<system>/<category>/<id>/path{1,2}.json`, two expert
 * diagnoses per case): each step's tool, its arguments and its full output, and from the experts' `GetErrorLogs`
 * outputs the lines they saw — the denominator of the expert evidence recall.
 * The outputs come in the shapes the dataset holds: `{ app: [chunk…], previous: [chunk…] }` (chunks of lines with the
 * container's timestamp prefix), the same as JSON text (once or twice encoded), a pattern summary
 * `{ total_errors, patterns: [{ count, sample }] }`, a list of lines, or an empty text.
 */
import * as v from 'valibot';
import { CONTAINER_PREFIX, STACK_FRAME } from './container-log.ts';
import { createHeaderParser } from './log-formats.ts';

export interface ExpertStep {
  tool: string;
  /** The step's arguments as the trajectory writes them (`service_name`, `resource_type`, `name`, …). */
  args: Record<string, string>;
  output: unknown;
}

const traceSchema = v.looseObject({
  diagnostic_trace: v.pipe(
    v.array(
      v.looseObject({
        tool_name: v.pipe(v.string(), v.maxLength(100)),
        calling: v.optional(v.pipe(v.string(), v.maxLength(4_000)), ''),
        output: v.optional(v.unknown()),
      }),
    ),
    v.maxLength(200),
  ),
});

/** A golden path's steps, or the reason it cannot be read (a stable, short text; never the file's content). */
export function parseGoldenPath(value: unknown): { ok: true; steps: ExpertStep[] } | { ok: false; problem: string } {
  const parsed = v.safeParse(traceSchema, value);
  if (!parsed.success) {
    return { ok: false, problem: `not a golden path (${v.getDotPath(parsed.issues[0]) ?? 'root'})` };
  }
  return {
    ok: true,
    steps: parsed.output.diagnostic_trace.map((step) => ({
      tool: step.tool_name,
      args: callingArguments(step.calling),
      output: step.output,
    })),
  };
}

/** `tool_name='X' arguments={service_name: 'a', port: 3306}` → `{ service_name: 'a', port: '3306' }`. */
export function callingArguments(calling: string): Record<string, string> {
  const start = calling.indexOf('arguments={');
  if (start === -1) return {};
  const args: Record<string, string> = {};
  for (const match of calling.slice(start + 11).matchAll(/(\w+): (?:'([^']*)'|"([^"]*)"|([\w.-]+))/g)) {
    const [, key, single, double, bare] = match;
    if (key !== undefined) args[key] = single ?? double ?? bare ?? '';
  }
  return args;
}

/** The raw lines of an expert's `GetErrorLogs` output, whatever its shape (see the module's note). */
export function expertErrorLines(output: unknown, depth = 0): string[] {
  if (depth > 2) return [];
  if (typeof output === 'string') {
    const text = output.trim();
    if (text.startsWith('{') || text.startsWith('[') || text.startsWith('"')) {
      try {
        return expertErrorLines(JSON.parse(text), depth + 1);
      } catch {
        // Not JSON: plain text lines.
      }
    }
    if (/^No error logs found/.test(text)) return [];
    return text === '' ? [] : text.split('\n');
  }
  if (Array.isArray(output)) return output.flatMap((item) => (typeof item === 'string' ? item.split('\n') : []));
  if (typeof output === 'object' && output !== null) {
    const record = output as Record<string, unknown>;
    if (Array.isArray(record.patterns)) {
      return record.patterns.flatMap((pattern) => {
        const sample = (pattern as { sample?: unknown } | null)?.sample;
        return typeof sample === 'string' ? sample.split('\n') : [];
      });
    }
    return ['app', 'previous'].flatMap((stream) =>
      Array.isArray(record[stream])
        ? (record[stream] as unknown[]).flatMap((chunk) => (typeof chunk === 'string' ? chunk.split('\n') : []))
        : [],
    );
  }
  return [];
}

/**
 * The distinct messages of an expert's error-log lines, as the recall counts them: each line without the container's
 * timestamp prefix and without the application's own time and level (as the importer reads them), runs of spaces
 * collapsed; blank lines and stack frames (`at …`, `... N more`, `File "…", line N`) are not messages.
 */
export function expertMessages(lines: readonly string[]): string[] {
  const parseHeader = createHeaderParser();
  const messages = new Set<string>();
  for (const line of lines) {
    const rest = line.replace(CONTAINER_PREFIX, '');
    if (rest.trim() === '' || STACK_FRAME.test(rest)) continue;
    const header = parseHeader(rest, 2000);
    // NOTE: the experts' tool cut long lines, ending them with `...`: what is left is the message's start.
    const message = (header?.message ?? rest)
      .replace(/[ \t]{2,}/g, ' ')
      .trim()
      .replace(/\.\.\.$/, '');
    if (message !== '') messages.add(message);
  }
  return [...messages];
}
