import { readFileSync } from 'node:fs';
import { diagnosisSettingKeys, settingDefault, settingDescription, settingForm } from '@diagnosis/core/config';
import { describe, expect, it } from 'vitest';
import { buildSettingsDoc, SETTINGS_DOC } from '../../../scripts/generate-settings-doc.ts';

describe('buildSettingsDoc', () => {
  it('is exactly the committed docs/settings.md, so the page cannot drift from the settings schema', () => {
    const committed = readFileSync(SETTINGS_DOC, 'utf8');

    expect(committed, 'docs/settings.md differs from the schema: run `npm run docs:settings`').toBe(buildSettingsDoc());
  });

  it('gives every setting of the schema one row with its form, default and description', () => {
    const page = buildSettingsDoc();

    for (const key of diagnosisSettingKeys()) {
      expect(settingDescription(key), key).toMatch(/\S/);
      expect(page, key).toContain(`<td><code>${key}</code>`);
    }
    expect(page.match(/<tr>\n/g)).toHaveLength(diagnosisSettingKeys().length);
  });

  it('reads the form, the default and the description from the schema itself', () => {
    const page = buildSettingsDoc();
    const rowOf = (key: string) => page.slice(page.indexOf(`<td><code>${key}</code>`)).split('</tr>')[0];

    expect(rowOf('SEMANTIC_GUARD')).toContain(`<td>${settingForm('SEMANTIC_GUARD')}</td>`);
    expect(rowOf('SEMANTIC_GUARD')).toContain('<td><code>enforce</code></td>');
    expect(settingDefault('DIAGNOSIS_MAX_MODEL_CALLS')).toBe('8');
    expect(rowOf('DIAGNOSIS_MAX_MODEL_CALLS')).toContain('<td><code>8</code></td>');
    expect(settingDefault('DIAGNOSIS_MODEL_ID')).toBeNull();
    expect(rowOf('DIAGNOSIS_MODEL_ID')).toContain('<td>—</td>');
    expect(rowOf('MYSQL_URL')).toContain('<td><code>MYSQL_URL</code> *</td>');
  });
});
