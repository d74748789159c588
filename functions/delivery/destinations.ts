/**
 * Where each enterprise's results go: the stage file's `delivery` section (checked at deploy time, like every other
 * setting) and its runtime form. NOTE: a destination's secret (a Slack incoming-webhook URL, a webhook signing key)
 * is an SST secret named here, never a value in the file; the deploy declares one `sst.Secret` per name and links it
 * to the delivery function, which reads it at cold start.
 */

// NOTE: by relative path: deploy/stage-config.ts (and so sst.config.ts) imports this module, and SST loads the
// config's imports of workspace packages as Node would, which cannot load their TypeScript sources.
import { ENTERPRISE_ID_PATTERN } from '@diagnosis/core/ids';
import * as v from 'valibot';

export const DESTINATION_TYPES = Object.freeze(['slack', 'sns', 'webhook', 'pagerduty', 'teams'] as const);
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/** At most this many destinations per enterprise, and enterprises per stage: a loop over them is bounded. */
export const MAX_DESTINATIONS_PER_ENTERPRISE = 10;
const MAX_DELIVERY_ENTERPRISES = 200;

/** A destination id: unique within its enterprise, safe in a DynamoDB sort key and a resource name. */
export const DESTINATION_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,39}$/;
/** An SST secret's name: `Destination…`, so it can never be the name of another resource of the app (`ModelApiKey`, a queue). */
const SECRET_NAME_PATTERN = /^Destination[A-Z0-9][A-Za-z0-9]{0,52}$/;

const destinationId = v.pipe(v.string(), v.regex(DESTINATION_ID_PATTERN));
const secretName = v.pipe(v.string(), v.regex(SECRET_NAME_PATTERN));
/** NOTE: https only, and no credentials in the URL (the signing key is the webhook's authentication). */
const httpsUrl = v.pipe(
  v.string(),
  v.maxLength(2_048),
  v.check((text) => {
    try {
      const url = new URL(text);
      return url.protocol === 'https:' && url.username === '' && url.password === '' && url.hash === '';
    } catch {
      return false;
    }
  }, 'an https URL without credentials or fragment'),
);

const emailAddress = v.pipe(v.string(), v.maxLength(254), v.email());

const destinationSchema = v.variant('type', [
  /** A Slack incoming webhook; the secret holds its URL (`https://hooks.slack.com/services/…`). */
  v.strictObject({ id: destinationId, type: v.literal('slack'), secret: secretName }),
  /** An SNS topic the deploy creates for this destination (subscribe email or SMS to it). */
  v.strictObject({
    id: destinationId,
    type: v.literal('sns'),
    emails: v.optional(v.pipe(v.array(v.pipe(v.string(), v.email())), v.maxLength(10)), []),
  }),
  /** A generic HTTPS webhook: the event as its body, signed with the key the secret holds. */
  v.strictObject({ id: destinationId, type: v.literal('webhook'), url: httpsUrl, secret: secretName }),
  /**
   * A note on the PagerDuty incident that started the run (REST API v2); runs not started by a PagerDuty webhook are
   * not sent here. The secret holds the REST API key; `from` is the e-mail of a valid PagerDuty user (the `From`
   * header an account-level key requires).
   */
  v.strictObject({ id: destinationId, type: v.literal('pagerduty'), secret: secretName, from: emailAddress }),
  /** A Microsoft Teams Workflows webhook (an Adaptive Card, one way); the secret holds its URL (it carries `sig=`). */
  v.strictObject({ id: destinationId, type: v.literal('teams'), secret: secretName }),
]);

export type DestinationConfig = v.InferOutput<typeof destinationSchema>;

const priceSchema = v.strictObject({
  input: v.pipe(v.number(), v.minValue(0), v.maxValue(1_000)),
  cachedInput: v.pipe(v.number(), v.minValue(0), v.maxValue(1_000)),
  output: v.pipe(v.number(), v.minValue(0), v.maxValue(1_000)),
});

/** The stage file's `delivery` section. */
export const deliverySettingsSchema = v.pipe(
  v.strictObject({
    /** Enterprise id → its destinations. */
    destinations: v.optional(
      v.pipe(
        v.record(
          v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
          v.pipe(v.array(destinationSchema), v.maxLength(MAX_DESTINATIONS_PER_ENTERPRISE)),
        ),
        v.check((record) => Object.keys(record).length <= MAX_DELIVERY_ENTERPRISES, 'too many enterprises'),
      ),
      {},
    ),
    /** USD per million tokens, to state each run's cost in the event; absent: `cost` is null. */
    price: v.optional(priceSchema),
    /**
     * Enterprise id → true: its destinations receive the real values behind the run's pseudonyms (docs/masking.md).
     * Absent or false: masked text, as the model saw it. NOTE: a boolean, nothing else (`"yes"`, `1` are refused).
     */
    reveal: v.optional(v.record(v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)), v.boolean()), {}),
  }),
  v.check(
    (settings) =>
      Object.values(settings.destinations).every(
        (list) => new Set(list.map((destination) => destination.id)).size === list.length,
      ),
    'destination ids repeat within an enterprise',
  ),
  v.check(
    (settings) =>
      Object.keys(settings.reveal).every((enterpriseId) => Object.hasOwn(settings.destinations, enterpriseId)),
    'reveal names an enterprise without destinations',
  ),
);

export type DeliverySettings = v.InferOutput<typeof deliverySettingsSchema>;

/** The secret names the stage's destinations use (each becomes one `sst.Secret`). */
export function destinationSecretNames(settings: DeliverySettings): string[] {
  const names = new Set<string>();
  for (const list of Object.values(settings.destinations)) {
    for (const destination of list) if (destination.type !== 'sns') names.add(destination.secret);
  }
  return [...names].sort();
}

/** The enterprises whose destinations receive the real values (`delivery.reveal`), sorted. */
export function revealEnterprises(settings: DeliverySettings): string[] {
  return Object.entries(settings.reveal)
    .filter(([, reveal]) => reveal)
    .map(([enterpriseId]) => enterpriseId)
    .sort();
}

/** The deployed name of an SNS destination's topic resource: one per enterprise and destination. */
export function snsTopicResourceName(enterpriseId: string, destinationId: string): string {
  const part = (text: string) =>
    text
      .split(/[-_]/)
      .filter((word) => word !== '')
      .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
      .join('');
  return `Delivery${part(enterpriseId)}${part(destinationId)}`;
}

/**
 * The delivery function's view of the destinations (`DELIVERY_DESTINATIONS`, JSON): secrets by name, SNS topics by
 * ARN (filled in by the deploy). Parsed strictly at cold start like every other setting.
 */
const runtimeDestinationSchema = v.variant('type', [
  v.strictObject({ id: destinationId, type: v.literal('slack'), secret: secretName }),
  v.strictObject({
    id: destinationId,
    type: v.literal('sns'),
    topicArn: v.pipe(v.string(), v.regex(/^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/)),
  }),
  v.strictObject({ id: destinationId, type: v.literal('webhook'), url: httpsUrl, secret: secretName }),
  v.strictObject({ id: destinationId, type: v.literal('pagerduty'), secret: secretName, from: emailAddress }),
  v.strictObject({ id: destinationId, type: v.literal('teams'), secret: secretName }),
]);
export const runtimeDestinationsSchema = v.record(
  v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
  v.pipe(v.array(runtimeDestinationSchema), v.maxLength(MAX_DESTINATIONS_PER_ENTERPRISE)),
);
/** The delivery function's `DELIVERY_REVEAL` (JSON): the enterprises that opted in to the reveal. */
export const runtimeRevealSchema = v.pipe(
  v.array(v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN))),
  v.maxLength(MAX_DELIVERY_ENTERPRISES),
);
export type RuntimeDestination = v.InferOutput<typeof runtimeDestinationSchema>;
export type RuntimeDestinations = v.InferOutput<typeof runtimeDestinationsSchema>;

/** A destination ready to send to: its secret resolved (the Slack URL, the signing key). */
export type ResolvedDestination =
  | { id: string; type: 'slack'; url: string }
  | { id: string; type: 'sns'; topicArn: string }
  | { id: string; type: 'webhook'; url: string; signingKey: string }
  | { id: string; type: 'pagerduty'; apiKey: string; from: string }
  | { id: string; type: 'teams'; url: string };

/** Enterprise id → its resolved destinations; a `Map` so no enterprise id can read an inherited property. */
export type DestinationDirectory = ReadonlyMap<string, readonly ResolvedDestination[]>;

/**
 * Resolves each destination's secret through `secretOf` (the handler reads `Resource[name].value`). A Slack URL that
 * is not https is refused here, at cold start, naming the secret, never its value.
 */
export function resolveDestinations(
  destinations: RuntimeDestinations,
  secretOf: (name: string) => string | undefined,
): DestinationDirectory {
  const directory = new Map<string, ResolvedDestination[]>();
  for (const [enterpriseId, list] of Object.entries(destinations)) {
    directory.set(
      enterpriseId,
      list.map((destination): ResolvedDestination => {
        if (destination.type === 'sns') return destination;
        const secret = secretOf(destination.secret);
        if (secret === undefined || secret === '')
          throw new DeliveryConfigError(`secret ${destination.secret} is unset`);
        if (destination.type === 'webhook') {
          return { id: destination.id, type: 'webhook', url: destination.url, signingKey: secret };
        }
        if (destination.type === 'pagerduty') {
          // NOTE: the key goes into a header: refuse anything a header could not carry as one token.
          if (!/^[A-Za-z0-9_+=-]{8,128}$/.test(secret)) {
            throw new DeliveryConfigError(`secret ${destination.secret} is not a PagerDuty API key`);
          }
          return { id: destination.id, type: 'pagerduty', apiKey: secret, from: destination.from };
        }
        if (!v.is(httpsUrl, secret)) throw new DeliveryConfigError(`secret ${destination.secret} is not an https URL`);
        return { id: destination.id, type: destination.type, url: secret };
      }),
    );
  }
  return directory;
}

/** A delivery setting the function refuses at cold start: names the key or secret, never a value. */
export class DeliveryConfigError extends Error {
  override name = 'DeliveryConfigError';
}

/**
 * The stage file's `delivery` section checked with the deploy's own schema (absent: no destinations), or null when
 * it is invalid — the caller names the file; the values are never echoed.
 */
export function parseStageDelivery(section: unknown): DeliverySettings | null {
  const parsed = v.safeParse(deliverySettingsSchema, section ?? {});
  return parsed.success ? parsed.output : null;
}
