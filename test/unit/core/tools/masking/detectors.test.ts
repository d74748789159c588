import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  maskingExclusionsSchema,
  maskingPatternsSchema,
} from '../../../../../packages/core/src/config/masking-settings.ts';
import { SettingsError } from '../../../../../packages/core/src/errors.ts';
import { loadCustomRules, NO_CUSTOM_RULES } from '../../../../../packages/core/src/tools/masking/custom-patterns.ts';
import { findIdentifiers } from '../../../../../packages/core/src/tools/masking/identifier-detectors.ts';
import { createMaskingSession } from '../../../../../packages/core/src/tools/masking/masking-session.ts';
import { redactSecrets, secretKindOfKey } from '../../../../../packages/core/src/tools/masking/secret-redaction.ts';

const SECRET = 'unit-test-masking-secret-of-at-least-32-characters';

describe('secretKindOfKey', () => {
  it('names secrets by how a field name ends', () => {
    expect(secretKindOfKey('password')).toBe('password');
    expect(secretKindOfKey('DB_PASSWORD')).toBe('password');
    expect(secretKindOfKey('apiKey')).toBe('api_key');
    expect(secretKindOfKey('access_token')).toBe('token');
    expect(secretKindOfKey('SecretAccessKey')).toBe('aws_secret_key');
    expect(secretKindOfKey('max_tokens')).toBeNull();
    expect(secretKindOfKey('secret_arn')).toBeNull();
    expect(secretKindOfKey('user_id')).toBeNull();
  });
});

describe('findIdentifiers', () => {
  it('finds IPv6 addresses but not times or MAC addresses', () => {
    const kinds = (text: string) => findIdentifiers(text).map((match) => match.kind);
    expect(kinds('client 2001:db8::8a2e:370:7334 at 14:05:00 mac 00:1a:2b:3c:4d:5e')).toEqual(['ipv6']);
  });

  it('does not take a phone number out of a longer hex or decimal id', () => {
    expect(findIdentifiers('trace 4f13812345678abc and 9913812345678')).toEqual([]);
  });
});

// NOTE: a detector with catastrophic backtracking would not finish these in any time a test run allows; linear
// ones take milliseconds. The inputs are the shapes that defeat naive patterns: long runs of one class that almost
// match, repeated prefixes, and unterminated structures.
const HOSTILE_LENGTH = 200_000;
const hostileInputs = [
  'a'.repeat(HOSTILE_LENGTH),
  `${'a.'.repeat(HOSTILE_LENGTH / 2)}@`,
  `${'a@b.'.repeat(HOSTILE_LENGTH / 4)}`,
  '1'.repeat(HOSTILE_LENGTH),
  '1 '.repeat(HOSTILE_LENGTH / 2),
  ':'.repeat(HOSTILE_LENGTH),
  'a:'.repeat(HOSTILE_LENGTH / 2),
  '-----BEGIN A-----'.repeat(HOSTILE_LENGTH / 17),
  `${'eyJ'.repeat(HOSTILE_LENGTH / 6)}.eyJ`,
  'eyJa-'.repeat(HOSTILE_LENGTH / 5),
  `${'eyJa-'.repeat(HOSTILE_LENGTH / 10)}.eyJ`,
  'eyJaaaa.eyJ'.repeat(HOSTILE_LENGTH / 11),
  'password='.repeat(HOSTILE_LENGTH / 9),
  'x://'.repeat(HOSTILE_LENGTH / 4),
  `http://${'u:'.repeat(HOSTILE_LENGTH / 2)}`,
  'Bearer '.repeat(HOSTILE_LENGTH / 7),
  '1.1.1.'.repeat(HOSTILE_LENGTH / 6),
  'arn:aws:'.repeat(HOSTILE_LENGTH / 8),
  '\\u0040'.repeat(HOSTILE_LENGTH / 6),
];

describe('masking on hostile input', () => {
  it.each(hostileInputs.map((input, index) => [index, input] as const))(
    'finishes on hostile input %i (200 k characters)',
    (_index, input) => {
      expect(typeof redactSecrets(input)).toBe('string');
      expect(Array.isArray(findIdentifiers(input))).toBe(true);
      const session = createMaskingSession({ mode: 'identifiers', secret: SECRET }, 'run-hostile');
      expect(typeof session.maskText(input)).toBe('string');
    },
    20_000,
  );
});

// NOTE: "bounded" is not enough: a start that scans 8 KiB before failing, at every fifth character, is bounded and
// still quadratic (the JWT regex this replaced took 2 s on a 64 KiB line of `eyJa-`, about 10 s on these 200 k).
// A linear pass takes a few milliseconds; one second is a margin no loaded machine eats, and quadratic cannot meet it.
describe('the JWT rule', () => {
  const REGEX = /\beyJ[A-Za-z0-9_-]{4,8192}\.eyJ[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,8192}/g;

  it('redacts what the JWT regex matches, and nothing else', () => {
    const piece = fc.constantFrom('e', 'y', 'J', 'eyJ', '.eyJ', 'a', 'Z', '0', '-', '_', '.', ' ', '=', 'é');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        expect(redactSecrets(text)).toBe(text.replace(REGEX, '[REDACTED:jwt]'));
      }),
      { numRuns: 3_000 },
    );
  });

  it('keeps the 8 KiB bound of each segment', () => {
    const header = `eyJ${'a'.repeat(8_192)}`;
    expect(redactSecrets(`${header}.eyJab.sig`)).toBe('[REDACTED:jwt]');
    expect(redactSecrets(`${header}a.eyJab.sig`)).toBe(`${header}a.eyJab.sig`);
    expect(redactSecrets(`x-eyJhbGci.eyJzdWIi.c2ln end`)).toBe('x-[REDACTED:jwt] end');
  });

  it('is linear on the hostile line a log can carry (the regex took seconds)', () => {
    const started = performance.now();
    redactSecrets('eyJa-'.repeat(HOSTILE_LENGTH / 5));
    redactSecrets(`${'eyJa-'.repeat(HOSTILE_LENGTH / 10)}.eyJ`);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('maskingPatternsSchema', () => {
  const parse = (value: unknown) => v.safeParse(maskingPatternsSchema, JSON.stringify(value)).success;

  it('accepts patterns with a pseudonym kind', () => {
    expect(parse([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }])).toBe(true);
  });

  it('refuses bad kinds, empty and overlong patterns, too many entries, unknown fields and what is not JSON', () => {
    expect(parse([{ kind: 'Order-Id', pattern: 'O[0-9]+' }])).toBe(false);
    expect(parse([{ kind: 'order', pattern: '' }])).toBe(false);
    expect(parse([{ kind: 'order', pattern: 'x'.repeat(257) }])).toBe(false);
    expect(parse(Array.from({ length: 33 }, () => ({ kind: 'order', pattern: 'O[0-9]+' })))).toBe(false);
    expect(parse([{ kind: 'order', pattern: 'O[0-9]+', extra: true }])).toBe(false);
    expect(v.safeParse(maskingPatternsSchema, 'not json').success).toBe(false);
    expect(v.safeParse(maskingExclusionsSchema, JSON.stringify(['ok\\.example'])).success).toBe(true);
    expect(v.safeParse(maskingExclusionsSchema, JSON.stringify([''])).success).toBe(false);
  });
});

describe('loadCustomRules', () => {
  const refusedKeys = async (patterns: { kind: string; pattern: string }[], exclusions: string[] = []) => {
    const error = await loadCustomRules(patterns, exclusions).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    return error instanceof SettingsError ? error.keys : error;
  };

  it('compiles RE2 patterns with a pseudonym kind', async () => {
    const rules = await loadCustomRules([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }]);
    expect(rules.find('at CUST-004211.')).toEqual([{ start: 3, end: 14, kind: 'customer_id' }]);
  });

  it('fails naming the key for patterns RE2 cannot run in linear time, empty matches and bad kinds', async () => {
    expect(await refusedKeys([{ kind: 'order', pattern: '(a+)+\\1' }])).toEqual(['MASKING_PATTERNS']);
    expect(await refusedKeys([{ kind: 'order', pattern: '(?=x)y' }])).toEqual(['MASKING_PATTERNS']);
    expect(await refusedKeys([{ kind: 'order', pattern: 'x*' }])).toEqual(['MASKING_PATTERNS']);
    expect(await refusedKeys([{ kind: 'Order-Id', pattern: 'O[0-9]+' }])).toEqual(['MASKING_PATTERNS']);
  });

  it('fails naming the key for exclusions that are not RE2 patterns', async () => {
    expect((await loadCustomRules([], ['ok\\.example'])).isExcluded('ok.example')).toBe(true);
    expect(await refusedKeys([], ['(?<=x)y'])).toEqual(['MASKING_EXCLUSIONS']);
  });

  it('gives the rules of no pattern when the stage defines none', async () => {
    expect(await loadCustomRules([], [])).toBe(NO_CUSTOM_RULES);
    expect(NO_CUSTOM_RULES.find('CUST-004211')).toEqual([]);
  });

  it('runs a hostile deployer pattern in linear time', async () => {
    const rules = await loadCustomRules([{ kind: 'nested', pattern: '(a+)+b' }]);
    expect(rules.find('a'.repeat(100_000))).toEqual([]);
  }, 20_000);
});

const planted = fc.constantFrom(
  'alice.w@example.cn',
  '13812345678',
  '+14155552671',
  '203.0.113.7',
  '2001:db8::8a2e:370:7334',
  '11010519491231002X',
  '4111111111111111',
);
const filler = fc.string({ unit: fc.constantFrom('a', ' ', '：', '用户', ',', '=', '"', '\n'), maxLength: 40 });

describe('maskText (property)', () => {
  it('never lets a planted identifier through, and masking twice changes nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, planted), { minLength: 1, maxLength: 6 }), filler, (parts, tail) => {
        const session = createMaskingSession({ mode: 'identifiers', secret: SECRET }, 'run-property');
        const text = `${parts.map(([before, value]) => `${before} ${value} `).join('')}${tail}`;
        const masked = session.maskText(text);
        for (const [, value] of parts) expect(masked).not.toContain(value);
        expect(session.maskText(masked)).toBe(masked);
        expect(session.reveal(masked)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
