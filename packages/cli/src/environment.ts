/**
 * The environment a `diagnosis` command reads: the process's own variables over those of a `.env` file in the
 * working directory (flags, read by each command, come first of all; defaults last). Parsed with Node's own
 * `util.parseEnv` (the dotenv format: `KEY=value`, quotes, `#` comments), so there is no dependency to keep. The file
 * is read, never written, and its values are never printed.
 */
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { CliError, EXIT } from './command-line.ts';

/** A `.env` larger than this is refused rather than read (it is a settings file, not data). */
const MAX_DOT_ENV_BYTES = 64 * 1024;

type Environment = Readonly<Record<string, string | undefined>>;

/** The `.env` of `directory` as variables (none when there is no file); a file too large or unreadable is refused. */
export function loadDotEnv(directory: string): Record<string, string> {
  const path = resolve(directory, '.env');
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return {};
    size = stat.size;
  } catch {
    return {};
  }
  if (size > MAX_DOT_ENV_BYTES) {
    throw new CliError(EXIT.CONFIG, `.env is larger than ${MAX_DOT_ENV_BYTES / 1024} KiB: not read`);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CliError(EXIT.CONFIG, '.env cannot be read (check its permissions)');
  }
  const parsed = parseEnv(text) as Record<string, string>;
  const variables: Record<string, string> = {};
  // NOTE: only names an environment variable can have; anything else in the file is ignored, never echoed.
  for (const [key, value] of Object.entries(parsed))
    if (/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(key)) variables[key] = value;
  // NOTE: `KEY=` in a settings file is a value someone meant to write: it is refused, never read as "the default"
  // (`DIAGNOSIS_MODEL_BASE_URL=` once sent a run to the default endpoint in silence).
  const empty = Object.keys(variables).filter((key) => variables[key] === '');
  if (empty.length > 0) {
    throw new CliError(
      EXIT.CONFIG,
      `.env gives ${empty.join(', ')} an empty value: give ${empty.length === 1 ? 'it a value' : 'each a value'}, or delete the line to use the default`,
    );
  }
  return variables;
}

/**
 * The process environment over the `.env` of `directory`: a variable set in the environment (even to the empty
 * string, which means "the default") wins over the file. `fileKeys`: the names the file gives (an error names where
 * a bad name came from).
 */
export function withDotEnv(
  env: Environment,
  directory: string,
): { env: Record<string, string | undefined>; fileKeys: ReadonlySet<string> } {
  const fromFile = loadDotEnv(directory);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [key, value] of Object.entries(env)) if (value !== undefined) merged[key] = value;
  return { env: merged, fileKeys: new Set(Object.keys(fromFile)) };
}
