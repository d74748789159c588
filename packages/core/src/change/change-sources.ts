import * as v from 'valibot';
import { ENTERPRISE_ID_PATTERN } from '../run/ids.ts';

const enterpriseId = v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN));
/** A service as the logs name it (the same form as a trigger mapping's `service`). */
export const CHANGE_SERVICE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;
const service = v.pipe(v.string(), v.regex(CHANGE_SERVICE_PATTERN));

/**
 * A change source's credential: the name of an SST secret (`Change…`) holding its signing secret or bearer token,
 * comma-separated during a rotation (any one of them valid is enough). A request proves the secrets it is signed
 * with, and reaches only the mappings of those secrets, so one source's secret cannot record changes for another's
 * enterprise.
 */
export const CHANGE_SECRET_NAME_PATTERN = /^Change[A-Z0-9][A-Za-z0-9]{0,52}$/;
const secret = v.pipe(v.string(), v.regex(CHANGE_SECRET_NAME_PATTERN));

/** A change webhook's id: its path, `POST /changes/<id>` (`github` is GitHub's own route). */
export const CHANGE_WEBHOOK_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
const RESERVED_IDS: readonly string[] = ['github', 'cloudtrail'];

/**
 * A signed change webhook (`POST /changes/<id>`): Argo CD notifications, Flux, a GitHub Actions step, a feature-flag
 * service. `auth`: `hmac` (default), an `X-Signature: sha256=<hex HMAC-SHA256 of the raw body>` header (Flux's
 * `generic-hmac` provider writes exactly this); `bearer`, an `Authorization: Bearer <token>` header, for a sender that
 * cannot sign (Argo CD notifications, Unleash). `format`: `generic`, the documented body (docs/changes.md), or
 * `flux`, a Flux notification-controller event. `services`: the services its changes may name (a body naming
 * another is recorded nowhere).
 */
const webhookSource = v.strictObject({
  source: v.literal('webhook'),
  id: v.pipe(
    v.string(),
    v.regex(CHANGE_WEBHOOK_ID_PATTERN),
    v.check((id) => !RESERVED_IDS.includes(id), 'not a reserved id'),
  ),
  enterpriseId,
  secret,
  auth: v.optional(v.picklist(['hmac', 'bearer']), 'hmac'),
  format: v.optional(v.picklist(['generic', 'flux']), 'generic'),
  services: v.pipe(v.array(service), v.minLength(1), v.maxLength(100)),
});

/** `owner/name`, as GitHub spells a repository (compared without regard to case, as GitHub does). */
export const GITHUB_REPOSITORY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;
const environmentName = v.pipe(v.string(), v.minLength(1), v.maxLength(100));

/**
 * GitHub `deployment_status` webhooks (`POST /changes/github`, `X-Hub-Signature-256` with the webhook's secret): a
 * repository's deployments are changes of `service`. `environments`: only deployments to these (GitHub's
 * `environment`, exactly); absent: every environment.
 */
const githubSource = v.strictObject({
  source: v.literal('github'),
  repository: v.pipe(v.string(), v.regex(GITHUB_REPOSITORY_PATTERN)),
  service,
  enterpriseId,
  secret,
  environments: v.optional(v.pipe(v.array(environmentName), v.minLength(1), v.maxLength(20))),
});

/**
 * AWS CloudTrail management write events through an EventBridge rule, mapped by account and region as CloudWatch
 * alarms are: the event's `account` and its `recipientAccountId` must both be `accountId`, its `region` and
 * `awsRegion` both `region` (when named). `eventSources`: only these services' calls (`lambda.amazonaws.com`…);
 * absent: every write call but the noise the rule leaves out. `service`: the service its changes are of, if one.
 */
const cloudtrailSource = v.strictObject({
  source: v.literal('cloudtrail'),
  accountId: v.pipe(v.string(), v.regex(/^\d{12}$/)),
  region: v.optional(v.pipe(v.string(), v.regex(/^[a-z]{2}(-[a-z]+)+-\d{1,2}$/))),
  enterpriseId,
  service: v.optional(service),
  eventSources: v.optional(
    v.pipe(v.array(v.pipe(v.string(), v.regex(/^[a-z0-9-]{1,60}\.amazonaws\.com$/))), v.minLength(1), v.maxLength(50)),
  ),
});

/**
 * The stage file's `changes.sources`: where changes come from and which enterprise each belongs to. Webhook ids are
 * unique, and a repository is mapped once (its deployments belong to one service of one enterprise).
 */
export const changeSourcesSchema = v.pipe(
  v.array(v.variant('source', [webhookSource, githubSource, cloudtrailSource])),
  v.maxLength(100),
  v.check((sources) => unique(sources.flatMap((entry) => (entry.source === 'webhook' ? [entry.id] : []))), 'ids'),
  v.check(
    (sources) =>
      unique(sources.flatMap((entry) => (entry.source === 'github' ? [entry.repository.toLowerCase()] : []))),
    'repositories',
  ),
);

const unique = (values: readonly string[]) => new Set(values).size === values.length;

export type ChangeSourceMapping = v.InferOutput<typeof changeSourcesSchema>[number];
export type WebhookChangeSource = Extract<ChangeSourceMapping, { source: 'webhook' }>;
export type GithubChangeSource = Extract<ChangeSourceMapping, { source: 'github' }>;
export type CloudTrailChangeSource = Extract<ChangeSourceMapping, { source: 'cloudtrail' }>;

/** The SST secrets the change sources name, sorted (each becomes one `sst.Secret`, linked to ChangeWebhook). */
export function changeSecretNames(sources: readonly ChangeSourceMapping[]): string[] {
  return [...new Set(sources.flatMap((entry) => (entry.source === 'cloudtrail' ? [] : [entry.secret])))].sort();
}

/** The webhook mapping of a path's id, or undefined. */
export function findWebhookSource(sources: readonly ChangeSourceMapping[], id: string) {
  return sources.find((entry): entry is WebhookChangeSource => entry.source === 'webhook' && entry.id === id);
}

/** The GitHub mapping of a repository (`owner/name`, any case), or undefined. */
export function findGithubSource(sources: readonly ChangeSourceMapping[], repository: string) {
  const wanted = repository.toLowerCase();
  return sources.find(
    (entry): entry is GithubChangeSource => entry.source === 'github' && entry.repository.toLowerCase() === wanted,
  );
}

/**
 * The first CloudTrail mapping of the event's origin and service: its account (the event's and the call's, which must
 * agree), its region when the mapping names one, its `eventSources` when it names them; or undefined.
 */
export function findCloudTrailSource(
  sources: readonly ChangeSourceMapping[],
  origin: { account: string | undefined; region: string | undefined; eventSource: string },
) {
  return sources.find(
    (entry): entry is CloudTrailChangeSource =>
      entry.source === 'cloudtrail' &&
      entry.accountId === origin.account &&
      (entry.region === undefined || entry.region === origin.region) &&
      (entry.eventSources === undefined || entry.eventSources.includes(origin.eventSource)),
  );
}
