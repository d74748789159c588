import type { JSONValue } from '@ai-sdk/provider';

const NOT_PLAIN = Symbol('not plain JSON data');

/**
 * `value` exactly as `JSON.parse(JSON.stringify(value))` gives it: a fresh JSON value, sharing nothing with `value`,
 * properties that are `undefined` left out. NOTE: data made only of plain objects, arrays, strings, finite numbers,
 * booleans and null (an observation) is copied directly, about a tenth of the round trip's time; anything JSON would
 * convert (`toJSON`, a date, `NaN`, `-0`, `undefined` in an array, a `__proto__` key) takes the round trip itself.
 */
export function toJsonValue(value: unknown): JSONValue {
  const copied = copyPlain(value);
  return copied === NOT_PLAIN ? (JSON.parse(JSON.stringify(value)) as JSONValue) : copied;
}

function copyPlain(value: unknown): JSONValue | typeof NOT_PLAIN {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0) ? value : NOT_PLAIN;
  if (Array.isArray(value)) {
    const copy: JSONValue[] = new Array(value.length);
    for (let index = 0; index < value.length; index += 1) {
      const item = copyPlain(value[index]);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy[index] = item;
    }
    return copy;
  }
  if (typeof value !== 'object') return NOT_PLAIN;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const copy: Record<string, JSONValue> = {};
  for (const key of Object.keys(value)) {
    const entry = (value as Record<string, unknown>)[key];
    if (entry === undefined) continue;
    if (key === '__proto__') return NOT_PLAIN;
    const item = copyPlain(entry);
    if (item === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = item;
  }
  return copy;
}
