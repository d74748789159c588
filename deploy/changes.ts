/**
 * The change sources' deployment as data (docs/changes.md): the stage file's `changes` section, the secrets to
 * declare, the EventBridge rule's pattern for CloudTrail write calls, and the one partition the change functions may
 * write. Pure functions of the stage file, so the tests read exactly what `sst.config.ts` deploys.
 */
import { CLOUDTRAIL_NOISE_SOURCES } from '@diagnosis/functions/infrastructure';
import * as v from 'valibot';
// NOTE: by relative path, like the other modules sst.config.ts imports (see stage-config.ts).
import { type ChangeSourceMapping, changeSecretNames, changeSourcesSchema } from '../packages/core/src/config/index.ts';

export { changeSecretNames };

/**
 * The stage file's `changes`: where changes come from and which enterprise each belongs to (docs/changes.md). NOTE:
 * written as objects with a `source` first (a JSON import widens `"github"` to string), then checked by the change
 * functions' own schema.
 */
export const changesSettingsSchema = v.strictObject({
  sources: v.optional(v.pipe(v.array(v.looseObject({ source: v.string() })), changeSourcesSchema), []),
});
export type ChangesSettings = v.InferOutput<typeof changesSettingsSchema>;

/** Whether the stage has a webhook or GitHub source (then the ChangeWebhook function and its route are deployed). */
export const hasChangeWebhooks = (sources: readonly ChangeSourceMapping[]) =>
  sources.some((entry) => entry.source !== 'cloudtrail');

/**
 * The EventBridge pattern of the CloudTrail rule: management write calls that succeeded, from the accounts the stage
 * file maps, without the noise sources; null when no CloudTrail source is mapped (no rule, no function). NOTE: the
 * function applies the same conditions again, so the pattern is an optimisation, never the rule.
 */
export function cloudTrailRulePattern(sources: readonly ChangeSourceMapping[]): Record<string, unknown> | null {
  const accounts = [
    ...new Set(sources.flatMap((entry) => (entry.source === 'cloudtrail' ? [entry.accountId] : []))),
  ].sort();
  if (accounts.length === 0) return null;
  return {
    'detail-type': ['AWS API Call via CloudTrail'],
    account: accounts,
    detail: {
      readOnly: [false],
      eventSource: [{ 'anything-but': [...CLOUDTRAIL_NOISE_SOURCES] }],
      errorCode: [{ exists: false }],
    },
  };
}
