/**
 * The settings of the two Slack functions, parsed once at cold start like every other function's (a bad value fails
 * the cold start naming the key, never the value). The deploy sets them from the stage file's `slack` section and
 * the resources it creates; the table, the workflow and the masking come from the settings the Trigger and feedback
 * functions read (`parseTriggerSettings`, `parseFeedbackSettings`).
 */
import { SettingsError } from '@diagnosis/core/config';
import * as v from 'valibot';
import { jsonSetting } from '../lambda/json-setting.ts';
import { runtimeSlackAppsSchema } from './slack-settings.ts';

const slackSettingsSchema = v.object({
  /** The stage file's `slack.apps` (JSON), secrets by name. */
  SLACK_APPS: v.optional(jsonSetting(runtimeSlackAppsSchema), '[]'),
  /** The SlackWork queue's URL. */
  SLACK_QUEUE_URL: v.optional(v.pipe(v.string(), v.url())),
  /** Slack's Web API base; set only for a loopback Slack (tests, the local runner). */
  SLACK_API_URL: v.optional(v.pipe(v.string(), v.url(), v.endsWith('/api/'))),
  /** Each Slack call's limit (default 5 s; the acknowledging function answers Slack within 3 s regardless). */
  SLACK_TIMEOUT_MS: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{2,4}$/), v.transform(Number), v.maxValue(20_000)),
    '5000',
  ),
  /** The InternalApi's URL, for the result card's link; unset: no link. */
  DIAGNOSIS_API_URL: v.optional(v.pipe(v.string(), v.url(), v.startsWith('https://'))),
});

/** The names of the Slack functions' settings (what a settings check may call a known name). */
export const SLACK_FUNCTION_SETTING_NAMES: readonly string[] = Object.keys(slackSettingsSchema.entries);

export type SlackFunctionSettings = v.InferOutput<typeof slackSettingsSchema>;

export function parseSlackFunctionSettings(environment: Record<string, string | undefined>): SlackFunctionSettings {
  const defined = Object.fromEntries(
    Object.keys(slackSettingsSchema.entries).flatMap((key) =>
      environment[key] === undefined || environment[key] === '' ? [] : [[key, environment[key]]],
    ),
  );
  const result = v.safeParse(slackSettingsSchema, defined);
  if (!result.success) {
    throw new SettingsError([...new Set(result.issues.map((issue) => String(issue.path?.[0]?.key ?? '(settings)')))]);
  }
  return result.output;
}
