/**
 * The Slack apps `diagnosis serve` serves: the stage file's `slack.apps`, each app's two secrets read from the
 * environment (or .env) under the secret's own SST name — `SlackE1001BotToken=xoxb-…` where a deployment has
 * `npx sst secret set SlackE1001BotToken xoxb-…` — and SLACK_API_URL / SLACK_TIMEOUT_MS as the Slack functions read
 * them (unset: Slack's own Web API). A variable named like a Slack secret (`Slack…`) that no stage file names is
 * refused (exit 78, `slackSecretKind` with refuseUnknownStageSecrets), with the secret probably meant. Everything is checked before
 * anything slow starts; an app whose secrets are unset is served as refused (local-slack-app.ts, the banner says so).
 */
import { SettingsError } from '@diagnosis/core/config';
import { SLACK_SECRET_NAME_PATTERN, type SlackAppConfig } from '@diagnosis/functions/infrastructure';
import type { CliIo } from '../command-line.ts';
import { settingsRefusal } from '../local/local-settings.ts';
import type { LocalSlackApp } from '../local/local-slack-app.ts';
import { slackSecretNamesOfStageFiles, stageFileName } from '../local/stage-file.ts';
import type { StageSecretKind } from '../setting-names.ts';

export interface ServeSlackPlan {
  apps: SlackAppConfig[];
  secretOf: (name: string) => string | undefined;
  apiUrl: string | undefined;
  timeoutMs: number;
}

/** The Slack secrets a variable may name: the served stage's apps' and every stage file's in deploy/. */
export function slackSecretKind(apps: readonly SlackAppConfig[]): StageSecretKind {
  const known = [
    ...new Set([
      ...apps.flatMap((app) => [app.botTokenSecret, app.signingSecretSecret]),
      ...slackSecretNamesOfStageFiles(),
    ]),
  ];
  return { known, pattern: SLACK_SECRET_NAME_PATTERN, doc: 'docs/chat.md' };
}

/**
 * The stage's Slack apps (`loadStageSlackApps`) and their settings, checked (the secrets' names are checked first,
 * refuseUnknownStageSecrets); null when the stage file has no Slack app.
 */
export async function planServeSlack(
  apps: SlackAppConfig[],
  io: Pick<CliIo, 'env' | 'dotEnvKeys'>,
): Promise<ServeSlackPlan | null> {
  if (apps.length === 0) return null;
  // NOTE: the Slack functions' own parse (the heavy index only now: a stage with Slack apps is being served).
  const { parseSlackFunctionSettings } = await import('@diagnosis/functions');
  let settings: ReturnType<typeof parseSlackFunctionSettings>;
  try {
    settings = parseSlackFunctionSettings({
      SLACK_API_URL: io.env.SLACK_API_URL,
      SLACK_TIMEOUT_MS: io.env.SLACK_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof SettingsError) throw settingsRefusal(error);
    throw error;
  }
  return {
    apps,
    secretOf: (name) => (io.env[name] === '' ? undefined : io.env[name]),
    apiUrl: settings.SLACK_API_URL,
    timeoutMs: settings.SLACK_TIMEOUT_MS,
  };
}

/** The banner's Slack lines: per app, served or refused and why (the secret's name, never a value). */
export function describeServeSlack(stage: string, plan: ServeSlackPlan | null, app: LocalSlackApp | null): string[] {
  if (plan === null || app === null) return [`slack: ${stageFileName(stage)} has no Slack app (docs/chat.md)`];
  const channels = (count: number) => `${count} channel${count === 1 ? '' : 's'}`;
  const webApi = plan.apiUrl ?? "Slack's own (https://slack.com/api/; SLACK_API_URL points elsewhere)";
  const secretsOf = new Map(plan.apps.map((config) => [config.id, config]));
  return [
    ...app.served.map(
      (served) =>
        `slack app ${served.id} (${served.enterpriseId}, ${channels(served.channels.size)}): served; Web API at ${webApi}`,
    ),
    ...app.refused.map((refused) => {
      const config = secretsOf.get(refused.id);
      const names = config === undefined ? 'its secrets' : `${config.botTokenSecret} and ${config.signingSecretSecret}`;
      return `slack app ${refused.id} (${refused.enterpriseId}, ${channels(refused.channels)}): ${refused.reason}: refuses every request (set ${names} in the environment or .env)`;
    }),
    '  (the work runs in this process; no table stream here: each run started is read back every 0.5 s for its card)',
  ];
}
