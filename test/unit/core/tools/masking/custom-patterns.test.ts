/**
 * A deployment's own patterns (`MASKING_PATTERNS` in the stage file) for what no built-in detector can find reliably:
 * names and addresses in free text are not detected (docs/masking.md, "What is not covered"), but a structured field
 * that holds one can be. The pattern goes through the parse the deploy and every cold start run.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { maskingPatternsSchema } from '../../../../../packages/core/src/config/masking-settings.ts';
import { loadCustomRules } from '../../../../../packages/core/src/tools/masking/custom-patterns.ts';
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
