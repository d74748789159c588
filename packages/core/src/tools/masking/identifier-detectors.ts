import { passesLuhn, passesResidentIdChecksum } from './checksums.ts';

// NOTE: `net` through Node's builtin-module API, not an ESM import: importing `node:net` makes Node read every export
// of its namespace, `BlockList` and `SocketAddress` included, which loads both classes' modules at every cold start
// (about 2 M instructions, BENCHMARKS.md at bc6a21c); `isIP` needs neither.
const { isIP } = process.getBuiltinModule('node:net');

/**
 * The identifiers layer's built-in kinds. Each becomes a per-run pseudonym `<kind:xxxxx>`; ARNs and AWS resource ids
 * keep their recognisable part outside the pseudonym (`i-<aws_id:k3f2a>`, `arn:aws:iam::<aws_account:m2q7d>:role/x`).
 */
export const IDENTIFIER_KINDS = Object.freeze([
  'email',
  'phone',
  'ipv4',
  'ipv6',
  'cn_id',
  'bank_card',
  'aws_account',
  'aws_id',
  'iam_user',
] as const);
type IdentifierKind = (typeof IDENTIFIER_KINDS)[number];

/** One value found in a text: `[start, end)` is the part that becomes a pseudonym. */
export interface IdentifierMatch {
  start: number;
  end: number;
  kind: string;
  /** The value, where it is not `text.slice(start, end)` (a match of the normalised view: its decoded form). */
  value?: string;
}

interface Detector {
  kind: IdentifierKind;
  /** A cheap test the text must pass for the pattern to be able to match at all. */
  gate: (text: string) => boolean;
  pattern: RegExp;
  /** The capture group that is the value (the rest of the match is kept as it is); 0: the whole match. */
  group?: number;
  accept?: (value: string) => boolean;
}

// NOTE: every repetition is bounded and no quantified group is ambiguous, so each start position costs a bounded
// number of steps (the tests run every detector on long hostile inputs). Order matters: earlier detectors win overlaps.
// NOTE: built per call, not once per module: each call gets its own global patterns (their `lastIndex` is state no
// two calls share), and the patterns' mutants are tested by the tests that call this, not by reloading every test
// (mutation testing, docs/development.md). V8 compiles a literal pattern once; a call allocates a dozen small objects.
const buildDetectors = (): readonly Detector[] => {
  const hasDigit = /[0-9]/;
  return [
    {
      kind: 'email',
      gate: (text) => text.includes('@'),
      pattern:
        /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g,
    },
    {
      kind: 'aws_account',
      gate: (text) => text.includes('arn:'),
      pattern: /\barn:aws[a-z-]{0,20}:[a-z0-9-]{1,64}:[a-z0-9-]{0,32}:([0-9]{12}):/dg,
      group: 1,
    },
    {
      kind: 'iam_user',
      gate: (text) => text.includes('arn:'),
      pattern:
        /\barn:aws[a-z-]{0,20}:(?:iam|sts)::[^:\s]{0,40}:(?:user|assumed-role\/[A-Za-z0-9+=,.@_-]{1,64})\/([A-Za-z0-9+=,.@_-]{1,64})/dg,
      group: 1,
    },
    {
      kind: 'aws_account',
      gate: (text) => hasDigit.test(text) && /account|owner/i.test(text),
      pattern: /(?<=\b(?:aws_?)?(?:account|owner)[_ -]?(?:id)?["']?\s{0,3}[:=]\s{0,3}["']?)[0-9]{12}(?![0-9])/gi,
    },
    {
      kind: 'aws_id',
      gate: (text) => text.includes('-'),
      pattern:
        /\b(?:i|vol|snap|sg|subnet|vpc|eni|ami|igw|nat|rtb|acl|eipalloc|lt|tgw|vpce|db|cluster)-([0-9a-f]{8}|[0-9a-f]{17})\b/dg,
      group: 1,
    },
    {
      kind: 'cn_id',
      gate: (text) => hasDigit.test(text),
      pattern:
        /(?<![0-9A-Za-z])[1-9][0-9]{5}[ -]?(?:18|19|20)[0-9]{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])[ -]?[0-9]{3}[0-9Xx](?![0-9A-Za-z])/g,
      // NOTE: as people write it too, region, birth date and sequence apart (`110105 19491231 002X`).
      accept: (value) => passesResidentIdChecksum(value.replace(/[ -]/g, '')),
    },
    {
      kind: 'bank_card',
      gate: (text) => hasDigit.test(text),
      pattern: /(?<![0-9A-Za-z])[2-6][0-9]{3}(?:[ -]?[0-9]{4}){2,3}(?:[ -]?[0-9]{1,3})?(?![0-9A-Za-z])/g,
      accept: (value) => passesLuhn(value.replace(/[ -]/g, '')),
    },
    {
      kind: 'phone',
      gate: (text) => hasDigit.test(text),
      pattern: /(?<![0-9A-Za-z+])(?:\+?86[ -]?)?1[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9A-Za-z])/g,
    },
    {
      kind: 'phone',
      gate: (text) => hasDigit.test(text),
      pattern: /(?<![0-9A-Za-z+])\+[1-9](?:[ -]?[0-9]){7,14}(?![0-9A-Za-z])/g,
    },
    {
      kind: 'ipv4',
      gate: (text) => text.includes('.') && hasDigit.test(text),
      pattern:
        /(?<![0-9.])(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?![0-9]|\.[0-9])/g,
    },
    {
      kind: 'ipv6',
      gate: (text) => text.includes(':'),
      pattern: /(?<![0-9A-Za-z:.])[0-9A-Fa-f]{0,4}:[0-9A-Fa-f:]{1,38}(?:\.[0-9]{1,3}){0,3}(?![0-9A-Za-z:])/g,
      accept: (value) => isIP(value) === 6 && /[0-9A-Fa-f]{2}/.test(value),
    },
  ];
};

/** Every built-in identifier in `text`, in order, without overlaps (the earlier detector wins). */
export function findIdentifiers(text: string): IdentifierMatch[] {
  const found: IdentifierMatch[] = [];
  for (const detector of buildDetectors()) {
    if (!detector.gate(text)) continue;
    const { pattern } = detector;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const group = detector.group ?? 0;
      const value = match[group];
      if (value === undefined || value.length === 0) continue;
      if (detector.accept !== undefined && !detector.accept(value)) continue;
      const start = match.indices?.[group]?.[0] ?? match.index ?? 0;
      found.push({ start, end: start + value.length, kind: detector.kind });
    }
  }
  return found.length < 2 ? found : withoutOverlaps(found, text.length);
}

/**
 * Keeps, of overlapping matches, the one listed first (detectors run in priority order), sorted by position.
 * Linear in the total length of the matches: each kept match marks the characters it covers.
 */
export function withoutOverlaps(matches: IdentifierMatch[], textLength: number): IdentifierMatch[] {
  const covered = new Uint8Array(textLength);
  const kept: IdentifierMatch[] = [];
  for (const match of matches) {
    let free = true;
    for (let index = match.start; index < match.end; index += 1) {
      if (covered[index] === 1) {
        free = false;
        break;
      }
    }
    if (!free) continue;
    covered.fill(1, match.start, match.end);
    kept.push(match);
  }
  return kept.sort((left, right) => left.start - right.start);
}
