/**
 * The stage file's `slack` section (docs/chat.md): one Slack app per enterprise that wants one. Each app names its
 * workspace (`teamId`), the channels it serves and the enterprise those channels belong to; its bot token and signing
 * secret are SST secrets named here, never values in the file. NOTE: the tenant of anything that arrives from Slack
 * comes from this mapping only (the app the request's URL names, whose signature verified it, then its team and
 * channel), never from message text, a button value or a user's claim.
 */
import { ENTERPRISE_ID_PATTERN } from '@diagnosis/core/ids';
import * as v from 'valibot';

/** At most this many apps a stage and channels an app: every lookup and loop over them is bounded. */
const MAX_SLACK_APPS = 50;
const MAX_SLACK_CHANNELS_PER_APP = 50;

/** The app's id in the stage file and its routes (`/slack/{appId}/events`): lower case, safe in a URL path. */
export const SLACK_APP_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** A Slack team (workspace) id: `T` then upper-case letters and digits. */
export const SLACK_TEAM_ID_PATTERN = /^T[A-Z0-9]{2,20}$/;
/** A Slack conversation id: public (`C`), private (`G`) channels; direct messages (`D`) are not served. */
export const SLACK_CHANNEL_ID_PATTERN = /^[CG][A-Z0-9]{2,20}$/;
/** The SST secret names of an app: `Slack…`, so they can never be another resource of the app. */
export const SLACK_SECRET_NAME_PATTERN = /^Slack[A-Z0-9][A-Za-z0-9]{0,52}$/;

const secretName = v.pipe(v.string(), v.regex(SLACK_SECRET_NAME_PATTERN));

const slackAppSchema = v.pipe(
  v.strictObject({
    id: v.pipe(v.string(), v.regex(SLACK_APP_ID_PATTERN)),
    /** The enterprise every channel of this app belongs to. */
    enterpriseId: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
    teamId: v.pipe(v.string(), v.regex(SLACK_TEAM_ID_PATTERN)),
    channels: v.pipe(
      v.array(v.pipe(v.string(), v.regex(SLACK_CHANNEL_ID_PATTERN))),
      v.minLength(1),
      v.maxLength(MAX_SLACK_CHANNELS_PER_APP),
      v.check((list) => new Set(list).size === list.length, 'a channel repeats'),
    ),
    /**
     * The channel where runs an alarm or webhook starts for this enterprise get their card (one of `channels`);
     * absent: triggered runs are not posted to Slack by this app.
     */
    alertChannel: v.optional(v.pipe(v.string(), v.regex(SLACK_CHANNEL_ID_PATTERN))),
    /** The SST secret holding the bot token (`xoxb-…`). */
    botTokenSecret: secretName,
    /** The SST secret holding the app's signing secret. */
    signingSecretSecret: secretName,
  }),
  // NOTE: the fault is the alertChannel's own, so a refusal names `apps[1].alertChannel`, not the whole app.
  v.forward(
    v.partialCheck(
      [['channels'], ['alertChannel']],
      (app) => app.alertChannel === undefined || app.channels.includes(app.alertChannel),
      'not one of the app’s channels',
    ),
    ['alertChannel'],
  ),
);

export type SlackAppConfig = v.InferOutput<typeof slackAppSchema>;

/**
 * The stage file's `slack` section. NOTE: a (team, channel) pair belongs to one app only, so a channel can never be
 * two enterprises'; an app's two secrets differ, and no secret serves two apps.
 */
export const slackSettingsSchema = v.pipe(
  v.strictObject({
    apps: v.optional(v.pipe(v.array(slackAppSchema), v.maxLength(MAX_SLACK_APPS)), []),
  }),
  v.check((settings) => new Set(settings.apps.map((app) => app.id)).size === settings.apps.length, 'app ids repeat'),
  v.check((settings) => {
    const pairs = settings.apps.flatMap((app) => app.channels.map((channel) => `${app.teamId}/${channel}`));
    return new Set(pairs).size === pairs.length;
  }, 'a channel is mapped by two apps'),
  v.check((settings) => {
    const withAlerts = settings.apps.filter((app) => app.alertChannel !== undefined).map((app) => app.enterpriseId);
    return new Set(withAlerts).size === withAlerts.length;
  }, 'an enterprise has two alert channels'),
  v.check((settings) => {
    const names = settings.apps.flatMap((app) => [app.botTokenSecret, app.signingSecretSecret]);
    return new Set(names).size === names.length;
  }, 'a secret serves two apps or both roles'),
);

export type SlackSettings = v.InferOutput<typeof slackSettingsSchema>;

/**
 * A stage file's `slack` section checked as the deploy checks it: its apps, or the path of the first fault
 * (`.apps[0].teamId`, relative to `slack`; empty for the section itself) and, when the fault is one of this schema's
 * own checks, its fixed reason (`a channel is mapped by two apps`) — never the value or valibot's own message, which
 * quotes it.
 */
export function parseStageSlack(value: unknown): { apps: SlackAppConfig[] } | { fault: string; reason?: string } {
  const parsed = v.safeParse(slackSettingsSchema, value ?? {});
  if (parsed.success) return { apps: parsed.output.apps };
  const [issue] = parsed.issues;
  const path = (issue.path ?? []).map((item) =>
    typeof item.key === 'number' ? `[${item.key}]` : `.${String(item.key)}`,
  );
  const own = issue.type === 'check' || issue.type === 'partial_check';
  return own ? { fault: path.join(''), reason: issue.message } : { fault: path.join('') };
}

/** The secret names the stage's Slack apps use (each becomes one `sst.Secret`), sorted. */
export function slackSecretNames(settings: SlackSettings): string[] {
  return settings.apps.flatMap((app) => [app.botTokenSecret, app.signingSecretSecret]).sort();
}

/** The Slack functions' `SLACK_APPS` (JSON): the apps exactly as the stage file writes them. */
export const runtimeSlackAppsSchema = v.pipe(v.array(slackAppSchema), v.maxLength(MAX_SLACK_APPS));

/** An app ready to serve: its secrets resolved. */
export interface ResolvedSlackApp {
  id: string;
  enterpriseId: string;
  teamId: string;
  channels: ReadonlySet<string>;
  alertChannel: string | null;
  botToken: string;
  signingSecret: string;
}

/** App id → app; a `Map`, so no app id can read an inherited property. */
export type SlackAppDirectory = ReadonlyMap<string, ResolvedSlackApp>;

/** A Slack setting the function refuses at cold start: names the secret, never its value. */
export class SlackConfigError extends Error {
  override name = 'SlackConfigError';
}

/**
 * Resolves each app's secrets through `secretOf` (the handler reads `Resource[name].value`). An unset secret, or a
 * bot token that is not a bot token (`xoxb-`), fails the cold start naming the secret.
 */
export function resolveSlackApps(
  apps: readonly SlackAppConfig[],
  secretOf: (name: string) => string | undefined,
): SlackAppDirectory {
  const directory = new Map<string, ResolvedSlackApp>();
  for (const app of apps) {
    const botToken = secretOf(app.botTokenSecret);
    const signingSecret = secretOf(app.signingSecretSecret);
    if (botToken === undefined || botToken === '') throw new SlackConfigError(`secret ${app.botTokenSecret} is unset`);
    if (!/^xoxb-[A-Za-z0-9-]{10,250}$/.test(botToken)) {
      throw new SlackConfigError(`secret ${app.botTokenSecret} is not a bot token (xoxb-…)`);
    }
    if (signingSecret === undefined || signingSecret.length < 16) {
      throw new SlackConfigError(`secret ${app.signingSecretSecret} is unset or too short`);
    }
    directory.set(app.id, {
      id: app.id,
      enterpriseId: app.enterpriseId,
      teamId: app.teamId,
      channels: new Set(app.channels),
      alertChannel: app.alertChannel ?? null,
      botToken,
      signingSecret,
    });
  }
  return directory;
}

/**
 * The enterprise a Slack request may act for: that of the app the route names, when the request's team is the app's
 * and its channel one of the app's channels; null otherwise (an unmapped channel is answered with nothing).
 * NOTE: exact comparisons only; nothing of the request but these two ids is consulted.
 */
export function enterpriseOfChannel(app: ResolvedSlackApp, teamId: unknown, channelId: unknown): string | null {
  if (typeof teamId !== 'string' || typeof channelId !== 'string') return null;
  if (teamId !== app.teamId || !app.channels.has(channelId)) return null;
  return app.enterpriseId;
}
