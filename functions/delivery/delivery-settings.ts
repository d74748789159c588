/**
 * The settings of the two delivery functions, parsed once at cold start like every other function's (a bad value
 * fails the cold start naming the key, never the value). The deploy sets them from the stage file's `delivery`
 * section and the resources it creates; the table comes from the link like everywhere else.
 */
import { SettingsError } from '@diagnosis/core/config';
import * as v from 'valibot';
import { jsonSetting as json } from '../lambda/json-setting.ts';
import { runtimeDestinationsSchema, runtimeRevealSchema } from './destinations.ts';

const priceSchema = v.strictObject({ input: v.number(), cachedInput: v.number(), output: v.number() });

const publishSettingsSchema = v.object({
  /** The bus the result events are put on. */
  DIAGNOSIS_RESULTS_BUS: v.pipe(v.string(), v.regex(/^[A-Za-z0-9._-]{1,256}$/)),
  /** The InternalApi's URL, for the events' links; unset: no links. */
  DIAGNOSIS_API_URL: v.optional(v.pipe(v.string(), v.url(), v.startsWith('https://'))),
  /** USD per million tokens (`{"input":…,"cachedInput":…,"output":…}`), for the events' cost; unset: null. */
  DELIVERY_PRICE: v.optional(json(priceSchema)),
});

const deliverSettingsSchema = v.object({
  DIAGNOSIS_TABLE_NAME: v.pipe(v.string(), v.minLength(3)),
  DYNAMODB_ENDPOINT: v.optional(v.pipe(v.string(), v.url())),
  DIAGNOSIS_API_URL: publishSettingsSchema.entries.DIAGNOSIS_API_URL,
  DELIVERY_PRICE: publishSettingsSchema.entries.DELIVERY_PRICE,
  /** Enterprise id → destinations (see `runtimeDestinationsSchema`); unset: nothing is delivered. */
  DELIVERY_DESTINATIONS: v.optional(json(runtimeDestinationsSchema), '{}'),
  /** The enterprises whose destinations receive the real values (`delivery.reveal`); unset: none. */
  DELIVERY_REVEAL: v.optional(json(runtimeRevealSchema), '[]'),
  /** The masking secret that opens a run's pseudonym map: linked (`MaskingKey`) only when some enterprise reveals. */
  MASKING_SECRET: v.optional(v.pipe(v.string(), v.minLength(32), v.maxLength(1_024))),
  /** The delivery queue's URL, to back a failed message off. */
  DELIVERY_QUEUE_URL: v.optional(v.pipe(v.string(), v.url(), v.startsWith('https://'))),
  /** Days a delivery record is kept (its `ttl`): the runs' RETENTION_DAYS, so a run and its deliveries go together. */
  RETENTION_DAYS: v.optional(v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,4}$/), v.transform(Number)), '90'),
  /** Each HTTP attempt's limit (default 10 s). */
  DELIVERY_TIMEOUT_MS: v.optional(
    v.pipe(v.string(), v.regex(/^[1-9][0-9]{2,4}$/), v.transform(Number), v.maxValue(25_000)),
    '10000',
  ),
});

/** The names of the delivery functions' settings (OnRunFinished's and DeliverResults'). */
export const DELIVERY_SETTING_NAMES: readonly string[] = [
  ...new Set([...Object.keys(publishSettingsSchema.entries), ...Object.keys(deliverSettingsSchema.entries)]),
];

export type PublishSettings = v.InferOutput<typeof publishSettingsSchema>;
export type DeliverSettings = v.InferOutput<typeof deliverSettingsSchema>;

function parse<T extends v.GenericSchema>(schema: T, environment: Record<string, string | undefined>) {
  const entries = Object.keys((schema as unknown as { entries: Record<string, unknown> }).entries);
  const defined = Object.fromEntries(
    entries.flatMap((key) =>
      environment[key] === undefined || environment[key] === '' ? [] : [[key, environment[key]]],
    ),
  );
  const result = v.safeParse(schema, defined);
  if (!result.success) {
    throw new SettingsError([...new Set(result.issues.map((issue) => String(issue.path?.[0]?.key ?? '(settings)')))]);
  }
  return result.output as v.InferOutput<T>;
}

export const parsePublishSettings = (environment: Record<string, string | undefined>): PublishSettings =>
  parse(publishSettingsSchema, environment);
export const parseDeliverSettings = (environment: Record<string, string | undefined>): DeliverSettings =>
  parse(deliverSettingsSchema, environment);
