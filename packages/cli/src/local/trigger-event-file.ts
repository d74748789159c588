/**
 * An event file as `diagnosis trigger` reads it: JSON of at most 256 KiB, its raw text kept (a webhook is signed over
 * its bytes), which sender it is from by its documented shape, and when that sender sent it.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CliError, EXIT, printable } from '../command-line.ts';

/** Which sender an event file is from, by its documented shape. */
export type EventSource = 'cloudwatch' | 'alertmanager' | 'pagerduty';

const MAX_EVENT_FILE_BYTES = 256 * 1024;

/** Reads an event file: JSON, at most 256 KiB; its raw text is kept (a webhook is signed over its bytes). */
export function loadEventFile(path: string): { raw: string; json: Record<string, unknown>; source: EventSource } {
  let raw: string;
  try {
    raw = readFileSync(resolve(path), 'utf8');
  } catch {
    throw new CliError(EXIT.USAGE, `cannot read the event file '${printable(path)}'`);
  }
  if (Buffer.byteLength(raw) > MAX_EVENT_FILE_BYTES) throw new CliError(EXIT.USAGE, 'the event file is over 256 KiB');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new CliError(EXIT.USAGE, 'the event file is not JSON');
  }
  const source = sourceOf(json);
  if (source === null || typeof json !== 'object' || json === null) {
    throw new CliError(
      EXIT.USAGE,
      'not a CloudWatch Alarm State Change, an Alertmanager webhook (version 4) or a PagerDuty v3 webhook',
    );
  }
  return { raw, json: json as Record<string, unknown>, source };
}

function sourceOf(json: unknown): EventSource | null {
  if (typeof json !== 'object' || json === null) return null;
  const event = json as Record<string, unknown>;
  if (event['detail-type'] === 'CloudWatch Alarm State Change') return 'cloudwatch';
  if (event.version === '4' && typeof event.groupKey === 'string') return 'alertmanager';
  if (typeof event.event === 'object' && event.event !== null && 'event_type' in event.event) return 'pagerduty';
  return null;
}

/**
 * When the sender sent the event: CloudWatch's `time` (or its state change, when that is later: `time` has whole
 * seconds), PagerDuty's `occurred_at`, Alertmanager's latest `startsAt`.
 */
export function sentAt(json: Record<string, unknown>, source: EventSource): number {
  const times: unknown[] =
    source === 'cloudwatch'
      ? [json.time, (json.detail as { state?: { timestamp?: unknown } } | undefined)?.state?.timestamp]
      : source === 'pagerduty'
        ? [(json.event as { occurred_at?: unknown }).occurred_at]
        : ((json.alerts as { startsAt?: unknown }[] | undefined) ?? []).map((alert) => alert.startsAt);
  const parsed = times
    .map((time) => (typeof time === 'string' ? Date.parse(time) : Number.NaN))
    .filter(Number.isFinite);
  if (parsed.length === 0) throw new CliError(EXIT.USAGE, 'the event names no time it was sent; give --received-at');
  return Math.max(...parsed);
}
