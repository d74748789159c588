import { MASKING_MODES, type MaskingMode } from '../../config/masking-mode.ts';
import { type CustomRules, NO_CUSTOM_RULES } from './custom-patterns.ts';
import { findIdentifiers, type IdentifierMatch, withoutOverlaps } from './identifier-detectors.ts';
import { deriveRunMaskingKeys, pseudonymCode } from './pseudonym-keys.ts';
import { redactionMarker, redactSecrets, secretKindOfKey } from './secret-redaction.ts';

export { MASKING_MODES, type MaskingMode };

/** How a deployment masks: built once per cold start, turned into a session per run. */
export interface MaskingConfig {
  mode: MaskingMode;
  /** The deployment's masking secret (at least 32 characters); each run's keys are derived from it and the runId. */
  secret: string;
  /** The deployer's patterns and exclusions (`MASKING_PATTERNS`, `MASKING_EXCLUSIONS`). */
  rules?: CustomRules;
}

/** One pseudonym of a run and the real value behind it. */
export interface PseudonymEntry {
  token: string;
  kind: string;
  value: string;
}

/**
 * A run that replays a captured recording (the eval's composition only, never a deployment's: see
 * `DiagnosisServiceDeps.replay`). The recording holds what its model saw, pseudonyms of the recorded run's key
 * included, and no real value behind them.
 */
export interface RecordedReplay {
  /**
   * Every pseudonym the recording holds: each is a valid tool argument inside this replay and passes to the recorded
   * adapters verbatim (there is no real value to restore); any other pseudonym this run has not shown is refused as
   * usual (`UNKNOWN_PSEUDONYM`).
   */
  recordedPseudonyms: ReadonlySet<string>;
}

/** What the tool boundary made of a tool's arguments: the real values, or a refusal. */
export type UnmaskedInput = { ok: true; value: unknown } | { ok: false; code: 'UNKNOWN_PSEUDONYM' };

/** Bounds that keep masking's cost and the pseudonym map bounded whatever a source returns. */
export const MASKING_LIMITS = Object.freeze({
  /** A text longer than this is cut (at a whitespace before it where there is one) before it is masked. */
  textChars: 16 * 1024,
  /** Pseudonyms one run may hold; past this, further identifiers become irreversible `[MASKED:kind]` markers. */
  entries: 5_000,
  /** A detected value longer than this is masked irreversibly (identifiers are short; a pattern may not be). */
  valueChars: 256,
  /** Depth of a JSON value walked; deeper parts are replaced by a marker. */
  depth: 24,
});

/** The texts one run remembers the masking of (see `maskText`): short ones, a bounded number. */
const MASKED_TEXT_MEMO = Object.freeze({ textChars: 2_048, entries: 1_024 });

/** A pseudonym as the model sees it: `<email:k3f2a>`. */
export const PSEUDONYM_PATTERN = /<([a-z][a-z0-9_]{0,23}):([a-z2-7]{5,13})>/g;
const PROTECTED_SPANS = /<[a-z][a-z0-9_]{0,23}:[a-z2-7]{5,13}>|\[(?:REDACTED|MASKED):[a-z0-9_]{1,24}\]/g;
const NO_FIELDS: ReadonlySet<string> = new Set();
const TWELVE_DIGITS = /^[0-9]{12}$/;
const ACCOUNT_KEYS = new Set(['accountid', 'awsaccountid', 'awsaccount', 'ownerid', 'account']);

/**
 * The masking of one run: secrets first (irreversible markers), then identifiers (pseudonyms keyed per run, stable
 * inside it), and the way back for the tool boundary: `unmaskInput` restores only pseudonyms this run has SHOWN to
 * the model (`markShown`), and refuses any other. Pure and synchronous; no I/O. The map grows as values are masked;
 * `takeNewEntries` hands the store what it has not persisted yet.
 */
export function createMaskingSession(config: MaskingConfig, runId: string, replay?: RecordedReplay) {
  const { mode } = config;
  const recorded: ReadonlySet<string> = replay?.recordedPseudonyms ?? new Set();
  const rules = config.rules ?? NO_CUSTOM_RULES;
  const keys = deriveRunMaskingKeys(config.secret, runId);
  const byValue = new Map<string, PseudonymEntry>();
  const byToken = new Map<string, PseudonymEntry>();
  const shown = new Set<string>();
  let unsaved: PseudonymEntry[] = [];

  function tokenFor(kind: string, value: string): string {
    const key = `${kind}\u0000${value}`;
    const known = byValue.get(key);
    if (known !== undefined) return known.token;
    if (byToken.size >= MASKING_LIMITS.entries || value.length > MASKING_LIMITS.valueChars) return `[MASKED:${kind}]`;
    let token = '';
    // NOTE: two values of a run must never share a pseudonym (the way back would be ambiguous): on a collision of the
    // short code, the code grows.
    for (let length = 5; length <= 13; length += 2) {
      token = `<${kind}:${pseudonymCode(keys.pseudonymKey, kind, value, length)}>`;
      if (!byToken.has(token)) break;
    }
    if (byToken.has(token)) return `[MASKED:${kind}]`;
    const entry: PseudonymEntry = { token, kind, value };
    byValue.set(key, entry);
    byToken.set(token, entry);
    unsaved.push(entry);
    return token;
  }

  function pseudonymise(text: string): string {
    if (mode !== 'identifiers') return text;
    const found = [...findIdentifiers(text), ...rules.find(text)];
    if (found.length === 0) return text;
    // NOTE: pseudonyms and markers already in the text are kept whole (masking twice changes nothing).
    const protectedSpans: IdentifierMatch[] = [];
    if (text.includes('<') || text.includes('[')) {
      for (const match of text.matchAll(PROTECTED_SPANS)) {
        const start = match.index ?? 0;
        protectedSpans.push({ start, end: start + match[0].length, kind: '' });
      }
    }
    const matches = withoutOverlaps([...protectedSpans, ...found], text.length);
    let output = '';
    let position = 0;
    for (const match of matches) {
      if (match.kind === '') continue;
      const value = text.slice(match.start, match.end);
      if (rules.isExcluded(value)) continue;
      output += text.slice(position, match.start) + tokenFor(match.kind, value);
      position = match.end;
    }
    return position === 0 ? text : output + text.slice(position);
  }

  // NOTE: within a run a text always masks to the same output (a value's pseudonym never changes once given, and a
  // value refused one stays refused), so a text masked before is looked up, not masked again: the projection and the
  // audit's copy of the same result, and the keys every log line and row repeats. Bounded: cleared when full.
  const maskedTexts = new Map<string, string>();

  function maskText(text: string): string {
    const known = maskedTexts.get(text);
    if (known !== undefined) return known;
    const masked = pseudonymise(redactSecrets(decodeEscapes(boundText(text))));
    if (text.length <= MASKED_TEXT_MEMO.textChars) {
      if (maskedTexts.size >= MASKED_TEXT_MEMO.entries) maskedTexts.clear();
      maskedTexts.set(text, masked);
    }
    return masked;
  }

  function maskValue(value: unknown, key?: string, depth = 0): unknown {
    if (depth > MASKING_LIMITS.depth) return '[MASKED:depth]';
    if (key !== undefined && (typeof value === 'string' || typeof value === 'number')) {
      const secretKind = secretKindOfKey(key);
      if (secretKind !== null) return String(value).length === 0 ? value : redactionMarker(secretKind);
      const digits = String(value);
      if (mode === 'identifiers' && TWELVE_DIGITS.test(digits) && ACCOUNT_KEYS.has(normalizedKey(key))) {
        return tokenFor('aws_account', digits);
      }
    }
    if (typeof value === 'string') return maskText(value);
    if (typeof value === 'number') {
      // A phone, card or id number stored as a number (a MySQL cell) is masked like its text.
      if (!Number.isSafeInteger(value) || Math.abs(value) < 1_000_000) return value;
      const text = String(value);
      const masked = pseudonymise(text);
      return masked === text ? value : masked;
    }
    if (Array.isArray(value)) return value.map((item) => maskValue(item, key, depth + 1));
    if (typeof value === 'object' && value !== null) {
      const masked: Record<string, unknown> = {};
      for (const [entryKey, entry] of Object.entries(value))
        masked[maskText(entryKey)] = maskValue(entry, entryKey, depth + 1);
      return masked;
    }
    return value;
  }

  return {
    mode,
    maskText,
    /** A JSON value masked string by string; a field named like a secret (`password`, `api_key`) is redacted whole. */
    maskValue: (value: unknown, key?: string) => maskValue(value, key),
    /** Registers every pseudonym of this run that `text` (what the model is about to see) contains as shown. */
    markShown(text: string): void {
      if (byToken.size === 0) return;
      for (const match of text.matchAll(PSEUDONYM_PATTERN)) {
        if (byToken.has(match[0])) shown.add(match[0]);
      }
    },
    /**
     * The tool arguments with every pseudonym replaced by its real value. NOTE: only pseudonyms this run has shown to
     * the model; one it has not (made up, from another run, or never shown) refuses the whole call. A field named in
     * `numberFields` (a MySQL parameter of type integer) that is exactly the pseudonym of a whole number gets the
     * number back (a masked numeric cell). In a replay of a recording, a pseudonym the recording holds is kept as it
     * is (it is matched against the recorded inputs as the recording saw them).
     */
    unmaskInput(value: unknown, numberFields: ReadonlySet<string> = NO_FIELDS): UnmaskedInput {
      if (mode !== 'identifiers' && recorded.size === 0) return { ok: true, value };
      let unknown = false;
      const restore = (item: unknown, depth: number, key?: string): unknown => {
        if (typeof item === 'string') {
          // NOTE: every pseudonym starts with `<`: a string without one has none to restore.
          if (!item.includes('<')) return item;
          const whole = shown.has(item) ? byToken.get(item) : undefined;
          if (
            whole !== undefined &&
            key !== undefined &&
            numberFields.has(key) &&
            /^-?[0-9]{1,15}$/.test(whole.value)
          ) {
            return Number(whole.value);
          }
          return item.replace(PSEUDONYM_PATTERN, (token) => {
            const entry = shown.has(token) ? byToken.get(token) : undefined;
            if (entry === undefined && !recorded.has(token)) unknown = true;
            return entry?.value ?? token;
          });
        }
        if (depth > MASKING_LIMITS.depth) return item;
        if (Array.isArray(item)) return item.map((entry) => restore(entry, depth + 1));
        if (typeof item === 'object' && item !== null) {
          return Object.fromEntries(
            Object.entries(item).map(([entryKey, entry]) => [entryKey, restore(entry, depth + 1, entryKey)]),
          );
        }
        return item;
      };
      const restored = restore(value, 0);
      return unknown ? { ok: false, code: 'UNKNOWN_PSEUDONYM' } : { ok: true, value: restored };
    },
    /** `text` with every pseudonym of this run replaced by its real value (the eval's scorer, the reveal). */
    reveal: (text: string) => revealText(text, byToken),
    /**
     * Takes in entries this run already holds (its stored map, opened), so that a value masked later gets the
     * pseudonym the run gave it (even one a collision lengthened) and is not stored twice. They are not new
     * (`takeNewEntries` leaves them out) and not shown. An entry whose value or pseudonym the session already holds
     * otherwise is ignored.
     */
    restoreEntries(entries: readonly PseudonymEntry[]): void {
      // NOTE: a value masked irreversibly before (the map was full) may get its pseudonym back now.
      maskedTexts.clear();
      for (const entry of entries) {
        const key = `${entry.kind}\u0000${entry.value}`;
        if (byValue.has(key) || byToken.has(entry.token)) continue;
        byValue.set(key, entry);
        byToken.set(entry.token, entry);
      }
    },
    /** The entries created since the last call, for the store. */
    takeNewEntries(): PseudonymEntry[] {
      const taken = unsaved;
      unsaved = [];
      return taken;
    },
    entries: (): readonly PseudonymEntry[] => [...byToken.values()],
    /** The key that seals this run's pseudonym map (derived when first read). */
    get mapKey(): Buffer {
      return keys.mapKey;
    },
  };
}

export type MaskingSession = ReturnType<typeof createMaskingSession>;

/** `text` with every pseudonym found in `entries` replaced by its value; others are left as they are. */
export function revealText(text: string, entries: ReadonlyMap<string, PseudonymEntry>): string {
  return text.replace(PSEUDONYM_PATTERN, (token) => entries.get(token)?.value ?? token);
}

function normalizedKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/**
 * The text cut to {@link MASKING_LIMITS.textChars}, at the last character before the cut that no value can contain
 * (whitespace, CJK text, quotes, brackets, separators), so that no value is cut in two: a cut value could escape its
 * detector and show its first part. A text without such a character in its first `textChars` is one oversized
 * token (a blob) and is masked whole.
 */
function boundText(text: string): string {
  if (text.length <= MASKING_LIMITS.textChars) return text;
  for (let index = MASKING_LIMITS.textChars; index > 0; index -= 1) {
    const code = text.charCodeAt(index);
    if (code > 0x7f || VALUE_BREAK.test(text.charAt(index))) return text.slice(0, index);
  }
  return '[MASKED:oversized]';
}

const VALUE_BREAK = /[\s,;"'<>()[\]{}|`]/;

/** Layers of escaping undone: a `\u0040` inside a JSON text inside a JSON string inside a log line is three. */
const ESCAPE_PASSES = 4;
const ESCAPE = /\\u([0-9a-fA-F]{4})|\\(["\\/])|\\([nrt])/g;
const CONTROL: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/**
 * JSON escapes inside a text decoded (up to {@link ESCAPE_PASSES} layers, for text escaped again and again), so `a\u0040b.cn` or `{\"token\":\"…\"}` inside
 * a log message is seen, and masked, as what it stands for.
 */
function decodeEscapes(text: string): string {
  let decoded = text;
  for (let pass = 0; pass < ESCAPE_PASSES && decoded.includes('\\'); pass += 1) {
    decoded = decoded.replace(
      ESCAPE,
      (_match, hex: string | undefined, literal: string | undefined, control: string | undefined) =>
        hex !== undefined ? String.fromCharCode(Number.parseInt(hex, 16)) : (literal ?? CONTROL[control ?? ''] ?? ''),
    );
  }
  return decoded;
}
