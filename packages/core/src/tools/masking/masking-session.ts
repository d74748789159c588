import { MASKING_MODES, type MaskingMode } from '../../config/masking-mode.ts';
import { boundText } from './bound-text.ts';
import { type CustomRules, NO_CUSTOM_RULES } from './custom-patterns.ts';
import { decodeEscapes } from './decode-escapes.ts';
import { findIdentifiers, IDENTIFIER_KINDS, type IdentifierMatch, withoutOverlaps } from './identifier-detectors.ts';
import { buildNormalisedView } from './normalised-view.ts';
import { findProtectedSpans, type ProtectedKinds, withoutDetectedIdentifiers } from './protected-spans.ts';
import { deriveRunMaskingKeys, pseudonymCode } from './pseudonym-keys.ts';
import { PSEUDONYM_PATTERN, type PseudonymEntry, revealText } from './reveal-text.ts';
import { redactionMarker, redactSecrets, SECRET_KINDS, secretKindOfKey } from './secret-redaction.ts';
import { type UnmaskedInput, unmaskInput } from './unmask-input.ts';

export { MASKING_MODES, type MaskingMode, type PseudonymEntry, type UnmaskedInput };

/** How a deployment masks: built once per cold start, turned into a session per run. */
export interface MaskingConfig {
  mode: MaskingMode;
  /** The deployment's masking secret (at least 32 characters); each run's keys are derived from it and the runId. */
  secret: string;
  /** The deployer's patterns and exclusions (`MASKING_PATTERNS`, `MASKING_EXCLUSIONS`). */
  rules?: CustomRules;
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

/**
 * The masking of one run: secrets first (irreversible markers), then identifiers (pseudonyms keyed per run, stable
 * inside it), and the way back for the tool boundary: `unmaskInput` restores only pseudonyms this run has SHOWN to
 * the model (`markShown`), and refuses any other. Pure and synchronous; no I/O. The map grows as values are masked;
 * `takeNewEntries` hands the store what it has not persisted yet.
 */
export function createMaskingSession(config: MaskingConfig, runId: string, replay?: RecordedReplay) {
  const { mode } = config;
  // NOTE: built per session, not at module level, so their mutants are tested by the tests that mask, not by
  // reloading every mutation test (docs/development.md, Mutation testing).
  /** The session's own irreversible markers besides the kinds' (`[MASKED:depth]`, `[MASKED:oversized]`). */
  const sessionMarkers = ['depth', 'oversized'] as const;
  const twelveDigits = /^[0-9]{12}$/;
  const accountKeys = new Set(['accountid', 'awsaccountid', 'awsaccount', 'ownerid', 'account']);
  const recorded: ReadonlySet<string> = replay?.recordedPseudonyms ?? new Set();
  const rules = config.rules ?? NO_CUSTOM_RULES;
  const protectedKinds: ProtectedKinds = {
    masked: new Set([...IDENTIFIER_KINDS, ...rules.kinds, ...sessionMarkers]),
    redacted: new Set(SECRET_KINDS),
  };
  const isHeld = (token: string) => byToken.has(token) || recorded.has(token);
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

  /**
   * The identifiers of `text`: the built-in detectors' and the deployment's patterns', on the text as it is and on
   * its normalised view (full-width digits, `%40`, zero-width splits undone), whose matches map back to the span of
   * the original they came from and keep their decoded value (one person, one pseudonym, however it was written).
   * NOTE: the view's matches come first: where an encoding hid part of a value (`zha\u200bng@example.net`, of which
   * the text as it is shows only `ng@example.net`), the whole value wins the overlap, never its visible tail. The
   * original's matches still count where the view loses one (`a\u200b13912345678` reads `a13912345678` in the view).
   */
  function findValues(text: string): { builtIn: IdentifierMatch[]; all: IdentifierMatch[] } {
    const builtIn = findIdentifiers(text);
    const custom = rules.find(text);
    const view = buildNormalisedView(text);
    if (view === null) return { builtIn, all: [...builtIn, ...custom] };
    const fromView = (match: IdentifierMatch): IdentifierMatch => ({
      start: view.sourceStart[match.start] ?? 0,
      end: view.sourceEnd[match.end - 1] ?? 0,
      kind: match.kind,
      value: view.text.slice(match.start, match.end),
    });
    const viewBuiltIn = findIdentifiers(view.text).map(fromView);
    const viewCustom = rules.find(view.text).map(fromView);
    return { builtIn: [...viewBuiltIn, ...builtIn], all: [...viewBuiltIn, ...builtIn, ...viewCustom, ...custom] };
  }

  function pseudonymise(text: string): string {
    if (mode !== 'identifiers') return text;
    const found = findValues(text);
    if (found.all.length === 0) return text;
    // NOTE: pseudonyms this run holds and markers of known kinds already in the text are kept whole (masking twice
    // changes nothing), unless a built-in detector finds a value in one (a detected identifier wins).
    const protectedSpans = withoutDetectedIdentifiers(
      findProtectedSpans(text, isHeld, protectedKinds),
      found.builtIn,
      text.length,
    );
    const matches = withoutOverlaps([...protectedSpans, ...found.all], text.length);
    let output = '';
    let position = 0;
    for (const match of matches) {
      if (match.kind === '') continue;
      const value = match.value ?? text.slice(match.start, match.end);
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
    const masked = pseudonymise(redactSecrets(decodeEscapes(boundText(text, MASKING_LIMITS.textChars))));
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
      if (mode === 'identifiers' && twelveDigits.test(digits) && accountKeys.has(normalizedKey(key))) {
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
    /** The tool arguments with the pseudonyms this run has shown restored (see unmask-input.ts); others refuse. */
    unmaskInput(value: unknown, numberFields?: ReadonlySet<string>): UnmaskedInput {
      if (mode !== 'identifiers' && recorded.size === 0) return { ok: true, value };
      return unmaskInput(value, { byToken, shown, recorded, maxDepth: MASKING_LIMITS.depth }, numberFields);
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

function normalizedKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '');
}
