/**
 * Masking's false negatives and false positives (issue 22), per kind, over the example world and the eval corpus.
 *
 * Each world's text is masked as the tool boundary masks it (one masking session per world, identifiers on): every
 * log row's message, every line of every runbook and MySQL seed. What should be masked is the world's manifest,
 * `personal-data.json` (written by scripts/plant-personal-data.ts, checked against the files by
 * test/unit/scripts/plant-personal-data.test.ts), so no second list is typed here:
 * - a **false negative** is a planted value still readable in the masked text of its file;
 * - a **false positive** is a value the masker took (a pseudonym's value, or a redaction) that no manifest lists.
 * Customer ids (`CUST-…`) have no built-in detector; they are counted with the deployment pattern the docs show
 * (`MASKING_PATTERNS: [{ "kind": "customer_id", "pattern": "CUST-[0-9]{6}" }]`) and, apart, without it.
 * The large-logs scenario's 180,000 generated lines are not included (they are made at run time).
 *
 * Run: `node bench/masking-accuracy.ts` (figures in BENCHMARKS.md and docs/masking.md).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadCustomRules } from '../packages/core/src/tools/masking/custom-patterns.ts';
import { createMaskingSession } from '../packages/core/src/tools/masking/masking-session.ts';
import type { PersonalDataManifest } from '../scripts/plant-personal-data.ts';

const SECRET = 'bench-masking-accuracy-secret-of-32-characters';
const REDACTION = /\[REDACTED:([a-z_]+)\]/g;

interface Tally {
  planted: number;
  missed: number;
  falsePositives: number;
  examples: Set<string>;
}

const EVIDENCE_FOLDERS = ['knowledge', 'logs', 'mysql'];

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : /\.(jsonl|md|sql)$/.test(name) ? [path] : [];
  });
}

/** The texts of one file as the adapters hand them to the boundary: log messages, one line of a runbook or seed. */
function textsOf(path: string): string[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  return path.endsWith('.jsonl')
    ? lines.map((line) => String((JSON.parse(line) as { message?: unknown }).message ?? ''))
    : lines;
}

const CUSTOMER_RULES = await loadCustomRules([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }]);

function measureWorld(label: string, world: string, withPattern: boolean, tallies: Map<string, Tally>) {
  const manifest = JSON.parse(readFileSync(join(world, 'personal-data.json'), 'utf8')) as PersonalDataManifest;
  const rules = withPattern ? CUSTOMER_RULES : undefined;
  const masking = createMaskingSession({ mode: 'identifiers', secret: SECRET, ...(rules ? { rules } : {}) }, label);
  const tally = (kind: string) => {
    const found = tallies.get(kind) ?? { planted: 0, missed: 0, falsePositives: 0, examples: new Set<string>() };
    tallies.set(kind, found);
    return found;
  };
  const maskedByFile = new Map<string, string>();
  let redactions = new Map<string, number>();
  // NOTE: only what the adapters read (runbooks, logs, MySQL seeds): a world's other files (examples/triggers' README,
  // say) never reach the boundary, and their placeholders would count as false positives of texts no run sees.
  const evidence = EVIDENCE_FOLDERS.map((folder) => join(world, folder)).filter((folder) => existsSync(folder));
  for (const path of evidence.flatMap(filesUnder)) {
    const masked = textsOf(path).map((text) => masking.maskText(text));
    maskedByFile.set(path.slice(world.length + 1), masked.join('\n'));
    for (const text of masked) {
      for (const match of text.matchAll(REDACTION)) {
        redactions = new Map(redactions).set(match[1] ?? '', (redactions.get(match[1] ?? '') ?? 0) + 1);
      }
    }
  }
  const plantedValues = new Set(manifest.values.map((planted) => planted.value));
  const plantedSecrets = new Map<string, number>();
  for (const planted of manifest.values) {
    const entry = tally(planted.kind);
    entry.planted += 1;
    if (maskedByFile.get(planted.file)?.includes(planted.value)) entry.missed += 1;
    if (['bearer', 'password'].includes(planted.kind)) {
      plantedSecrets.set(planted.kind, (plantedSecrets.get(planted.kind) ?? 0) + 1);
    }
  }
  for (const entry of masking.entries()) {
    if (plantedValues.has(entry.value)) continue;
    const found = tally(entry.kind);
    found.falsePositives += 1;
    if (found.examples.size < 4) found.examples.add(`${entry.value} (${label})`);
  }
  for (const [kind, count] of redactions) {
    const extra = count - (plantedSecrets.get(kind) ?? 0);
    if (extra > 0) {
      tally(kind).falsePositives += extra;
      tally(kind).examples.add(`${extra} redaction(s) (${label})`);
    }
  }
}

function worlds(): { label: string; world: string }[] {
  const scenarios = readdirSync('eval/scenarios')
    .filter((name) => existsSync(join('eval/scenarios', name, 'world/personal-data.json')))
    .sort()
    .map((name) => ({ label: name, world: join('eval/scenarios', name, 'world') }));
  return [{ label: 'example world', world: 'examples' }, ...scenarios];
}

function print(title: string, tallies: Map<string, Tally>) {
  console.log(`\n${title}`);
  console.log('| kind | planted | missed (false negatives) | masked, not planted (false positives) | e.g. |');
  console.log('| --- | --- | --- | --- | --- |');
  let planted = 0;
  let missed = 0;
  let falsePositives = 0;
  for (const [kind, tally] of [...tallies].sort(([a], [b]) => a.localeCompare(b))) {
    planted += tally.planted;
    missed += tally.missed;
    falsePositives += tally.falsePositives;
    console.log(
      `| ${kind} | ${tally.planted} | ${tally.missed} | ${tally.falsePositives} | ${[...tally.examples].join(', ')} |`,
    );
  }
  console.log(`| all | ${planted} | ${missed} | ${falsePositives} | |`);
}

/**
 * Issue 32, items 7 and 8: every distinct planted phone, e-mail, bank card and resident id of the corpus written the
 * ways a hostile or merely unusual text writes it, each in a sentence of its own: in full-width characters, with `@`
 * URL-encoded (e-mail only), split by zero-width characters, its digits in another script (Arabic-Indic, the
 * mathematical bold digits), as HTML character references, its digit groups split by Unicode spaces (phone and card),
 * with look-alikes of `@` and `.` (e-mail: `﹫`, `。`), and wrapped in marker look-alikes (`[MASKED:v]`,
 * `[REDACTED:v]`, `<x_v:aaaaa>`). A form is missed when the masked sentence still shows the form as written, the value,
 * or its first 7 characters; a false positive is a masked value no manifest lists.
 */
const HOSTILE_KINDS = new Set(['phone', 'email', 'bank_card', 'cn_id']);
const fullWidth = (text: string) =>
  text.replace(/[0-9A-Za-z@.]/g, (character) => String.fromCharCode(character.charCodeAt(0) + 0xfee0));
const zeroWidthSplit = (text: string) => `${text.slice(0, 3)}\u200b${text.slice(3, 7)}\u2060${text.slice(7)}`;
/** Split by invisible characters outside the zero-width block: an astral tag character and a Hangul filler. */
const tagSplit = (text: string) => `${text.slice(0, 3)}\u{E0031}${text.slice(3, 7)}\u3164${text.slice(7)}`;
/** The digits of `value` in the script whose zero is `zero` (null when it has none to write). */
const digitsIn = (zero: number) => (value: string) =>
  /[0-9]/.test(value) ? value.replace(/[0-9]/g, (digit) => String.fromCodePoint(zero + Number(digit))) : null;
/** `value` as HTML decimal character references, every character. */
const references = (value: string) => [...value].map((character) => `&#${character.codePointAt(0)};`).join('');
/**
 * A phone's groups (3-4-4, after its `+86`) or a card's (4 each) split by a no-break and a narrow no-break space, as a
 * word processor writes them; null for the other kinds.
 */
function unicodeSpaced(value: string, kind: string): string | null {
  const spaces = ['\u00a0', '\u202f'];
  const join = (groups: string[]) =>
    groups.map((group, index) => (index === 0 ? group : `${spaces[index % 2]}${group}`)).join('');
  if (kind === 'bank_card') return join(value.match(/.{1,4}/g) ?? [value]);
  if (kind !== 'phone') return null;
  const prefix = value.startsWith('+86') ? '+86' : '';
  const digits = value.slice(prefix.length);
  const groups = join([digits.slice(0, 3), digits.slice(3, 7), digits.slice(7)]);
  return prefix === '' ? groups : `${prefix}\u00a0${groups}`;
}
const HOSTILE_FORMS: readonly [string, (value: string, kind: string) => string | null][] = [
  ['full-width', (value) => fullWidth(value)],
  ['Arabic-Indic digits', (value) => digitsIn(0x660)(value)],
  ['mathematical digits', (value) => digitsIn(0x1d7ce)(value)],
  ['HTML references', (value) => references(value)],
  ['Unicode-space split', (value, kind) => unicodeSpaced(value, kind)],
  [
    'look-alike @ and .',
    (value, kind) => (kind === 'email' ? value.replace('@', '\ufe6b').replace(/\.(?=[^.]*$)/, '\u3002') : null),
  ],
  ['url-encoded', (value, kind) => (kind === 'email' ? value.replace('@', '%40') : null)],
  ['zero-width split', (value) => zeroWidthSplit(value)],
  ['tag/filler split', (value) => tagSplit(value)],
  ['[MASKED:…]', (value) => `[MASKED:${value}]`],
  ['[REDACTED:…]', (value) => `[REDACTED:${value}]`],
  ['<x_…:aaaaa>', (value) => `<x_${value}:aaaaa>`],
];

export function measureHostileForms(
  selection: readonly { label: string; world: string }[],
  createSession: typeof createMaskingSession = createMaskingSession,
): Map<string, Tally> {
  const tallies = new Map<string, Tally>();
  const values = new Map<string, string>();
  for (const { world } of selection) {
    const manifest = JSON.parse(readFileSync(join(world, 'personal-data.json'), 'utf8')) as PersonalDataManifest;
    for (const planted of manifest.values) if (HOSTILE_KINDS.has(planted.kind)) values.set(planted.value, planted.kind);
  }
  for (const [form, write] of HOSTILE_FORMS) {
    const masking = createSession({ mode: 'identifiers', secret: SECRET }, `hostile-${form}`);
    for (const [value, kind] of values) {
      const written = write(value, kind);
      if (written === null) continue;
      const key = `${kind}, ${form}`;
      const tally = tallies.get(key) ?? { planted: 0, missed: 0, falsePositives: 0, examples: new Set<string>() };
      tallies.set(key, tally);
      tally.planted += 1;
      const masked = masking.maskText(`用户 ${written} 下单失败`);
      // NOTE: read as a person reads it: invisible characters do not hide a value's first part.
      const visible = masked.replace(/[\u00ad\u200b-\u200f\u2060-\u2064\ufeff]/g, '');
      const partials = [value.slice(0, 7), fullWidth(value).slice(0, 7), value.slice(-7), fullWidth(value).slice(-7)];
      if ([written, value, ...partials].some((needle) => visible.includes(needle))) {
        tally.missed += 1;
        if (tally.examples.size < 2) tally.examples.add(JSON.stringify(masked));
      }
      // A false positive: a masked value that is not the planted one (nor the planted one with what the sentence
      // glued to it, as `x_<local part>` of the `<x_…:aaaaa>` look-alike, which is the address as written, nor the
      // planted one with the spaces between its groups, as the Unicode-space form writes it).
      for (const entry of masking.takeNewEntries()) {
        if (entry.value.includes(value) || entry.value.replaceAll(' ', '') === value) continue;
        tally.falsePositives += 1;
        if (tally.examples.size < 2) tally.examples.add(entry.value);
      }
    }
  }
  return tallies;
}

export function benchMaskingAccuracy(): void {
  const all = worlds();
  for (const [title, selection] of [
    ['example world', all.slice(0, 1)],
    [`eval corpus (${all.length - 1} worlds)`, all.slice(1)],
  ] as const) {
    const withPattern = new Map<string, Tally>();
    const builtInOnly = new Map<string, Tally>();
    for (const { label, world } of selection) {
      measureWorld(label, world, true, withPattern);
      measureWorld(label, world, false, builtInOnly);
    }
    print(`masking accuracy, ${title}, with the customer_id pattern:`, withPattern);
    const customers = builtInOnly.get('customer_id');
    if (customers !== undefined) {
      console.log(`without a MASKING_PATTERNS entry: customer_id ${customers.missed} of ${customers.planted} missed`);
    }
  }
  print(
    `hostile forms of the eval corpus's planted values (${all.length - 1} worlds):`,
    measureHostileForms(all.slice(1)),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`node ${process.version}; ${new Date().toISOString()}`);
  benchMaskingAccuracy();
}
