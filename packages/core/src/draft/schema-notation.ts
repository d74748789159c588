/**
 * A JSON Schema (as `@valibot/to-json-schema` writes ours) in a compact notation for a prompt: the same types, enums,
 * bounds, patterns and required fields, in about a third of the tokens. NOTE: it covers exactly the keywords our
 * schemas use and throws on any other, so a schema can never lose a constraint silently on its way to the model.
 *
 * Notation: `{"a": T, "b"?: T}` (every object closed: no other fields), `string(1–1000)`, `string(≤300)`,
 * `string(/^…$/)`, `integer(0–9)`, `"X"|"Y"`, `T | null`, `[≤10 × T]`, `[1–6 × T]`, and a tuple `[A, B]` (exactly
 * those entries, in that order).
 */
type Schema = Record<string, unknown>;

const KNOWN = new Set([
  '$schema',
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'additionalItems',
  'enum',
  'anyOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'pattern',
  'description',
]);

function range(low: unknown, high: unknown): string {
  if (low === undefined && high === undefined) return '';
  if (low === undefined || low === 0) return high === undefined ? '' : `≤${high}`;
  if (high === undefined) return `≥${low}`;
  return `${low}–${high}`;
}

export function renderSchemaNotation(input: object): string {
  const schema = input as Schema;
  for (const key of Object.keys(schema)) {
    if (!KNOWN.has(key)) throw new TypeError(`schema notation: unsupported keyword ${key}`);
  }
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Schema[]).map(renderSchemaNotation).join(' | ');
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join('|');
  switch (schema.type) {
    case 'null':
      return 'null';
    case 'string': {
      const bounds = [
        range(schema.minLength, schema.maxLength),
        schema.pattern === undefined ? '' : `/${schema.pattern}/`,
      ]
        .filter((part) => part !== '')
        .join(', ');
      return bounds === '' ? 'string' : `string(${bounds})`;
    }
    case 'integer':
    case 'number': {
      const bounds = range(schema.minimum, schema.maximum);
      return bounds === '' ? String(schema.type) : `${schema.type}(${bounds})`;
    }
    case 'array': {
      if (Array.isArray(schema.items)) return tupleNotation(schema);
      const count = range(schema.minItems, schema.maxItems);
      const item = renderSchemaNotation((schema.items ?? {}) as Schema);
      return `[${count === '' ? '' : `${count} × `}${item}]`;
    }
    case 'object': {
      if (schema.additionalProperties !== false) throw new TypeError('schema notation: objects must be closed');
      const required = new Set((schema.required ?? []) as string[]);
      const fields = Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(
        ([name, field]) => `${JSON.stringify(name)}${required.has(name) ? '' : '?'}: ${renderSchemaNotation(field)}`,
      );
      return `{${fields.join(', ')}}`;
    }
    default:
      throw new TypeError(`schema notation: unsupported type ${String(schema.type)}`);
  }
}

/** A closed tuple (`items` a list, no other entry, every one required) as `[A, B]`; any other list form throws. */
function tupleNotation(schema: Schema): string {
  const items = schema.items as Schema[];
  if (schema.additionalItems !== false || schema.minItems !== items.length || schema.maxItems !== undefined) {
    throw new TypeError('schema notation: tuples must be closed and complete');
  }
  return `[${items.map(renderSchemaNotation).join(', ')}]`;
}

/** One sentence that says how to read the notation, for the prompt that embeds it. */
export const SCHEMA_NOTATION_LEGEND =
  '记法：所有字段都必须出现（带 ? 的可省略），不允许其他字段；string(1–1000) 为字符数范围，[≤10 × T] 为最多 10 个 T 的数组，A | B 为二者之一。';
