import * as v from 'valibot';
import { changeSourcesSchema } from '../change/change-sources.ts';
import { builtOnce } from './built-once.ts';
import { badKeys, pickDefined, SettingsError } from './evidence-settings.ts';
import { integer, STORE_SETTING_FIELDS } from './store-settings.ts';

/** How long a change is kept after it landed (the stage file's settings may say otherwise; docs/changes.md). */
export const CHANGE_RETENTION_FIELD = {
  CHANGE_RETENTION_DAYS: v.optional(
    v.pipe(
      integer(1),
      v.maxValue(365),
      v.description('Days a recorded change (deploy, config, flag, infra) is kept after it landed'),
    ),
    '30',
  ),
};

/**
 * The settings of the change functions (the change webhook route and the CloudTrail rule's target): the table, the
 * change sources (the stage file's `changes.sources`, as JSON, checked at deploy time with the same schema) and the
 * retention. Built on first use: no other function parses with it.
 */
const changeSettingsSchema = /* @__PURE__ */ builtOnce(() =>
  v.object({
    DIAGNOSIS_TABLE_NAME: STORE_SETTING_FIELDS.DIAGNOSIS_TABLE_NAME,
    DYNAMODB_ENDPOINT: STORE_SETTING_FIELDS.DYNAMODB_ENDPOINT,
    CHANGE_SOURCES: v.optional(v.pipe(v.string(), v.parseJson(), changeSourcesSchema), '[]'),
    ...CHANGE_RETENTION_FIELD,
  }),
);

export type ChangeSettings = v.InferOutput<ReturnType<typeof changeSettingsSchema>>;

/** The change functions' settings from their environment; a bad value names its key, never the value. */
export function parseChangeSettings(environment: Record<string, string | undefined>): ChangeSettings {
  const schema = changeSettingsSchema();
  const result = v.safeParse(schema, pickDefined(environment, schema));
  if (!result.success) throw new SettingsError(badKeys(result.issues));
  return result.output;
}
