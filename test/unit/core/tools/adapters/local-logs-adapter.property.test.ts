import type { LogLine, LogsInput } from '@diagnosis/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createLineMatcher } from '../../../../../packages/core/src/tools/adapters/local-logs-adapter.ts';
import { toolCall } from '../../../../support/tool-call.ts';

const WINDOW = { start_time: '2026-11-30T14:00:00+08:00', end_time: '2026-11-30T15:00:00+08:00' };
const START = Date.parse(WINDOW.start_time);
const END = Date.parse(WINDOW.end_time);

/** The matcher's meaning, written the plain way: every line parsed, every field checked on the parsed record. */
function reference(raw: string, input: LogsInput, enterpriseId: string): { time: number; line: LogLine } | undefined {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof record !== 'object' || record === null) return undefined;
  if (record.enterprise_id !== enterpriseId || record.service !== input.service) return undefined;
  if (input.level !== undefined && record.level !== input.level) return undefined;
  const { timestamp, message, level } = record;
  if (typeof timestamp !== 'string' || typeof message !== 'string' || typeof level !== 'string') return undefined;
  if (input.keyword !== undefined && !message.toLowerCase().includes(input.keyword.toLowerCase())) return undefined;
  const time = Date.parse(timestamp);
  if (!(time >= Date.parse(input.start_time) && time <= Date.parse(input.end_time))) return undefined;
  const line: LogLine = { timestamp, level, service: input.service, message };
  if (typeof record.trace_id === 'string') line.trace_id = record.trace_id;
  return { time, line };
}

// Instants around the window's edges (both ends included), inside, outside, and strings Date.parse refuses.
const instant = fc.oneof(
  fc.constantFrom(START, END, START - 1, END + 1, START + 1, END - 1),
  fc.integer({ min: START - 3 * 3_600_000, max: END + 3 * 3_600_000 }),
);
const timestampText = fc.oneof(
  instant.map((ms) => new Date(ms).toISOString()),
  instant.map((ms) => new Date(ms).toISOString().replace('Z', '+00:00')),
  instant.map((ms) => new Date(ms + 8 * 3_600_000).toISOString().replace('Z', '+08:00')),
  fc.constantFrom('not a time', '', '2026-11-30', '2026-11-30T14:30:00'),
);
// Keys and values a hostile or odd log line may carry: the key spelled with an escape, nested timestamps, a second
// top-level key (the last one wins), whitespace around the colon, quotes and backslashes in the message.
const spelledKey = fc.constantFrom('"timestamp"', '"timest\\u0061mp"', '"timestamp" ', '"timestamp"\t');
const message = fc.oneof(
  fc.constantFrom(
    'order failed',
    'HikariPool timeout',
    'quote " inside',
    'back\\slash',
    '"timestamp":"2026-11-30T06:30:00Z"',
  ),
  fc.string({ maxLength: 12 }),
);
const line = fc
  .record({
    key: spelledKey,
    colonSpace: fc.constantFrom(':', ': ', ' : ', ':\t'),
    time: fc.oneof(
      timestampText.map((text) => JSON.stringify(text)),
      fc.constantFrom('12', 'null', '{"a":1}'),
    ),
    nested: fc.option(timestampText, { nil: undefined }),
    second: fc.option(timestampText, { nil: undefined }),
    message,
    level: fc.constantFrom('ERROR', 'INFO'),
    order: fc.boolean(),
  })
  .map((parts) => {
    const fields = [
      `${parts.key}${parts.colonSpace}${parts.time}`,
      `"level":${JSON.stringify(parts.level)}`,
      '"service":"order-service"',
      '"enterprise_id":"E1001"',
      `"message":${JSON.stringify(parts.message)}`,
    ];
    if (parts.nested !== undefined) fields.push(`"meta":{"timestamp":${JSON.stringify(parts.nested)}}`);
    if (parts.second !== undefined) fields.push(`"timestamp":${JSON.stringify(parts.second)}`);
    return `{${(parts.order ? fields : [...fields].reverse()).join(',')}}`;
  });

describe('createLineMatcher', () => {
  it('answers every line exactly as parsing it whole would, whatever its timestamps and their spelling', () => {
    fc.assert(
      fc.property(
        line,
        fc.option(fc.constantFrom('ERROR', 'INFO'), { nil: undefined }),
        fc.option(fc.constantFrom('order', 'hikari', '"', '\\'), { nil: undefined }),
        (raw, level, keyword) => {
          const input: LogsInput = { service: 'order-service', ...WINDOW };
          if (level !== undefined) input.level = level;
          if (keyword !== undefined) input.keyword = keyword;
          const match = createLineMatcher(toolCall('query_logs', input, { enterpriseId: 'E1001' }), 'enterprise_id');
          expect(match(raw)).toEqual(reference(raw, input, 'E1001'));
        },
      ),
      { numRuns: 3_000 },
    );
  });

  it('keeps a line whose only in-window timestamp is its last top-level one, and drops one whose is nested', () => {
    const input: LogsInput = { service: 'order-service', ...WINDOW };
    const match = createLineMatcher(toolCall('query_logs', input, { enterpriseId: 'E1001' }), 'enterprise_id');
    const fields = '"level":"ERROR","service":"order-service","enterprise_id":"E1001","message":"m"';
    expect(match(`{"timestamp":"2026-11-29T00:00:00Z",${fields},"timestamp":"2026-11-30T06:30:00Z"}`)).toBeDefined();
    expect(match(`{"timestamp":"2026-11-29T00:00:00Z",${fields},"meta":{"timestamp":"2026-11-30T06:30:00Z"}}`)).toBe(
      undefined,
    );
    expect(match(`{"timest\\u0061mp":"2026-11-30T06:30:00Z",${fields}}`)).toBeDefined();
  });

  it('answers no match, never throws, for a line that is JSON but no object', () => {
    const input: LogsInput = { service: 'order-service', ...WINDOW };
    const match = createLineMatcher(toolCall('query_logs', input, { enterpriseId: 'E1001' }), 'enterprise_id');
    for (const raw of ['null', '5', '"timestamp"', '[]', 'true']) expect(match(raw)).toBeUndefined();
  });
});
