/**
 * A deployment's own patterns (`MASKING_PATTERNS` in the stage file) for what no built-in detector can find reliably:
 * names and addresses in free text are not detected (docs/masking.md, "What is not covered"), but a structured field
 * that holds one can be. The pattern goes through the parse the deploy and every cold start run.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { maskingPatternsSchema } from '../../../../../packages/core/src/config/masking-settings.ts';
import { SettingsError } from '../../../../../packages/core/src/errors.ts';
import { loadCustomRules, NO_CUSTOM_RULES } from '../../../../../packages/core/src/tools/masking/custom-patterns.ts';
import { createMaskingSession } from '../../../../../packages/core/src/tools/masking/masking-session.ts';

/** The stage file's entry docs/masking.md shows, as the stage file writes it. */
const STAGE_PATTERNS = [
  {
    kind: 'person_name',
    pattern: '(?:receiver_name|contact_name|姓名)[=:：](?P<value>[^\\s,;，；。"]{1,32})',
  },
  { kind: 'address', pattern: 'ship_to="(?P<value>[^"]{1,200})"' },
];

const STAGE_RULES = await loadCustomRules(v.parse(maskingPatternsSchema, JSON.stringify(STAGE_PATTERNS)));
const CUSTOMER_RULES = await loadCustomRules([{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }]);

const session = () =>
  createMaskingSession(
    {
      mode: 'identifiers',
      secret: 'custom-patterns-test-secret-of-32-characters',
      rules: STAGE_RULES,
    },
    'run-custom-patterns',
  );

describe('loadCustomRules', () => {
  it('pseudonymises a name field’s value and keeps its key when the pattern names a group `value`', () => {
    const masking = session();
    const masked = masking.maskText(
      'order created receiver_name=张伟 ship_to="上海市浦东新区世纪大道 100 号 3 栋" user_phone=13812345678',
    );
    expect(masked).toMatch(
      /^order created receiver_name=<person_name:[a-z2-7]{5}> ship_to="<address:[a-z2-7]{5}>" user_phone=<phone:[a-z2-7]{5}>$/,
    );
    expect(masked).not.toContain('张伟');
    expect(masked).not.toContain('世纪大道');
    // The same name is the same pseudonym, in a field of another name too; the model can use it as an argument.
    const again = masking.maskText('姓名：张伟');
    const token = again.slice('姓名：'.length);
    expect(masked).toContain(token);
    masking.markShown(again);
    expect(masking.unmaskInput({ keyword: token })).toEqual({ ok: true, value: { keyword: '张伟' } });
  });

  it('masks the whole match of a pattern without a `value` group, and a name in free text not at all', () => {
    const masking = createMaskingSession(
      {
        mode: 'identifiers',
        secret: 'custom-patterns-test-secret-of-32-characters',
        rules: CUSTOMER_RULES,
      },
      'run-custom-patterns-2',
    );
    expect(masking.maskText('CUST-004211 张伟 called')).toMatch(/^<customer_id:[a-z2-7]{5}> 张伟 called$/);
  });
});

describe('the compiled rules (exact spans, kinds and exclusions)', () => {
  it('names every kind of its patterns, in order, and finds each match of each pattern', async () => {
    const rules = await loadCustomRules([
      { kind: 'order_id', pattern: 'ORD[0-9]{3}' },
      { kind: 'customer_id', pattern: 'id=(?P<value>C[0-9]{2})' },
    ]);
    expect(rules.kinds).toEqual(['order_id', 'customer_id']);
    // A match at the very start, two of one pattern, and a `value` group inside a longer match.
    expect(rules.find('ORD123 and ORD456 id=C42')).toEqual([
      { start: 0, end: 6, kind: 'order_id' },
      { start: 11, end: 17, kind: 'order_id' },
      { start: 21, end: 24, kind: 'customer_id' },
    ]);
    expect(rules.find('id=C42')).toEqual([{ start: 3, end: 6, kind: 'customer_id' }]);
    expect(rules.find('nothing here')).toEqual([]);
    expect(rules.isExcluded('ORD123')).toBe(false);
  });

  it('skips a match whose `value` group is empty or did not take part', async () => {
    const rules = await loadCustomRules([
      { kind: 'ref', pattern: 'ref=(?P<value>[0-9]*);' },
      { kind: 'tag', pattern: 'tag(?:-|=(?P<value>[a-z]{2}))!' },
    ]);
    expect(rules.find('ref=; tag-! ok')).toEqual([]);
    expect(rules.find('ref=7; tag=ab!')).toEqual([
      { start: 4, end: 5, kind: 'ref' },
      { start: 11, end: 13, kind: 'tag' },
    ]);
  });

  it('excludes a value only when an exclusion matches it whole', async () => {
    const rules = await loadCustomRules([], ['ok\\.example', 'test-[0-9]+']);
    expect(rules.kinds).toEqual([]);
    expect(rules.find('ok.example test-1')).toEqual([]);
    expect(rules.isExcluded('ok.example')).toBe(true);
    expect(rules.isExcluded('test-12')).toBe(true);
    expect(rules.isExcluded('a.ok.example')).toBe(false);
    expect(rules.isExcluded('test-12x')).toBe(false);
    expect(rules.isExcluded('okxexample')).toBe(false);
  });

  it('gives the shared empty rules for no settings, and fails naming the key of the one refused', async () => {
    expect(await loadCustomRules()).toBe(NO_CUSTOM_RULES);
    expect(await loadCustomRules(undefined, [])).toBe(NO_CUSTOM_RULES);
    expect((await loadCustomRules(undefined, ['x[0-9]'])).isExcluded('x1')).toBe(true);
    expect(NO_CUSTOM_RULES.kinds).toEqual([]);
    expect(NO_CUSTOM_RULES.find('CUST-004211')).toEqual([]);
    expect(NO_CUSTOM_RULES.isExcluded('anything')).toBe(false);
    const refused = (patterns: { kind: string; pattern: string }[], exclusions: string[] = []) =>
      loadCustomRules(patterns, exclusions).then(
        () => 'accepted',
        (error: unknown) => (error instanceof SettingsError ? error.keys : 'other error'),
      );
    expect(await refused([{ kind: 'order', pattern: '(' }])).toEqual(['MASKING_PATTERNS']);
    expect(await refused([{ kind: 'Order', pattern: 'O[0-9]' }])).toEqual(['MASKING_PATTERNS']);
    expect(await refused([{ kind: 'order', pattern: 'O[0-9]' }], ['('])).toEqual(['MASKING_EXCLUSIONS']);
    expect(await refused([{ kind: 'order', pattern: 'O[0-9]' }], ['ok'])).toBe('accepted');
  });
});
