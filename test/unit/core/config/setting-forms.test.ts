import { diagnosisSettingKeys, settingForm } from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';

describe('settingForm', () => {
  it('gives every setting of the functions a form in words, so no refusal lacks one', () => {
    for (const key of [...diagnosisSettingKeys(), 'DIAGNOSIS_WORKFLOW_ARN']) {
      expect(settingForm(key), key).toMatch(/^(one of|a |an |text|printable ASCII|3 to 255)/);
    }
  });

  it('reads the form from the schema: choices, ranges, URLs, lengths', () => {
    expect(settingForm('SEMANTIC_GUARD')).toBe('one of enforce, shadow, off');
    expect(settingForm('TENANT_MAX_CONCURRENT_RUNS')).toBe('a whole number from 1 to 256');
    expect(settingForm('DIAGNOSIS_MAX_PREVIOUS_TURN_BYTES')).toBe('a whole number of at least 512');
    expect(settingForm('DIAGNOSIS_MODEL_BASE_URL')).toBe('an http:// or https:// URL');
    expect(settingForm('DIAGNOSIS_MODEL_ID')).toBe('text of 1 to 200 characters');
    expect(settingForm('NOT_A_SETTING')).toBeUndefined();
  });
});
