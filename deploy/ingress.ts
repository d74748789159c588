/**
 * The ingress edge as data (docs/security.md, "Every route"): the routes that senders outside AWS call — chat apps,
 * incident webhooks, change webhooks — live on an API of their own, `IngressApi`, never on the IAM-only
 * `InternalApi`, and each has its own throttle. Pure functions of the stage file's `ingress` section, so the tests
 * read exactly what `sst.config.ts` deploys.
 */
import * as v from 'valibot';

/** The IngressApi's routes, by route key as API Gateway writes it: the only routes not behind IAM. */
export const INGRESS_ROUTE_KEYS = Object.freeze([
  'POST /triggers/{source}',
  'POST /slack/{appId}/{kind}',
  'POST /changes/{source}',
] as const);
export type IngressRouteKey = (typeof INGRESS_ROUTE_KEYS)[number];

/**
 * One route's throttle, as API Gateway's route settings hold it: a steady rate (requests a second, a token bucket's
 * refill) and a burst (the bucket's size). API Gateway answers 429 `Too Many Requests` past it, before the function
 * runs. At most 10,000 a second, AWS's default account quota.
 */
const throttleSchema = v.strictObject({
  rateLimit: v.pipe(v.number(), v.minValue(1), v.maxValue(10_000)),
  burstLimit: v.pipe(v.number(), v.safeInteger(), v.minValue(1), v.maxValue(5_000)),
});
export type RouteThrottle = v.InferOutput<typeof throttleSchema>;

/**
 * The default throttle of each ingress route. Why these: a webhook sender sends an event per incident change or
 * notification group (tens a minute in a storm), Slack a request per mention, click or modal (a channel's people at
 * once), a deploy pipeline a change per service and environment (a release train of many services at once, Flux an
 * event per object each interval); each function's reserved concurrency (`reservedConcurrency.api`) is the second
 * bound behind it.
 */
export const DEFAULT_INGRESS_THROTTLING: Readonly<Record<IngressRouteKey, Readonly<RouteThrottle>>> = Object.freeze({
  'POST /triggers/{source}': Object.freeze({ rateLimit: 10, burstLimit: 20 }),
  'POST /slack/{appId}/{kind}': Object.freeze({ rateLimit: 20, burstLimit: 40 }),
  'POST /changes/{source}': Object.freeze({ rateLimit: 20, burstLimit: 50 }),
});

/**
 * The throttle of any IngressApi route without one of its own (the stage's default route settings, which API Gateway
 * applies to each route separately): the lowest of the defaults.
 */
export const INGRESS_DEFAULT_ROUTE_THROTTLE: Readonly<RouteThrottle> = Object.freeze({ rateLimit: 10, burstLimit: 20 });

/** The stage file's `ingress` section: a throttle per route key, replacing that route's default. */
export const ingressSettingsSchema = v.strictObject({
  throttling: v.optional(
    v.strictObject(
      Object.fromEntries(INGRESS_ROUTE_KEYS.map((key) => [key, v.optional(throttleSchema)])) as {
        [Key in IngressRouteKey]: v.OptionalSchema<typeof throttleSchema, undefined>;
      },
    ),
    {},
  ),
});
export type IngressSettings = v.InferOutput<typeof ingressSettingsSchema>;

/** The throttle a route gets on a stage: the stage file's, or the default. */
export function ingressThrottle(settings: IngressSettings, routeKey: IngressRouteKey): RouteThrottle {
  return { ...(settings.throttling[routeKey] ?? DEFAULT_INGRESS_THROTTLING[routeKey]) };
}

/**
 * The IngressApi stage's settings for the routes created on it: the default route throttle, and each route's own
 * (API Gateway's `routeSettings`). NOTE: a stage may name only routes that exist, so the deploy gives this the routes
 * it created, and makes the stage wait for them (SST creates an API's stage with the API, before its routes).
 */
export function buildIngressStageSettings(settings: IngressSettings, routeKeys: readonly string[]) {
  const unknown = routeKeys.filter((key) => !(INGRESS_ROUTE_KEYS as readonly string[]).includes(key));
  if (unknown.length > 0) throw new Error(`not an ingress route: ${unknown.join(', ')}`);
  return {
    defaultRouteSettings: {
      throttlingRateLimit: INGRESS_DEFAULT_ROUTE_THROTTLE.rateLimit,
      throttlingBurstLimit: INGRESS_DEFAULT_ROUTE_THROTTLE.burstLimit,
    },
    routeSettings: (routeKeys as readonly IngressRouteKey[]).map((routeKey) => {
      const throttle = ingressThrottle(settings, routeKey);
      return { routeKey, throttlingRateLimit: throttle.rateLimit, throttlingBurstLimit: throttle.burstLimit };
    }),
  };
}
