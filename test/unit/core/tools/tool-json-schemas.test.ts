import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveToolJsonSchemas } from '../../../../packages/core/src/tools/derive-tool-json-schemas.ts';
import type { MysqlQueryDescriptor } from '../../../../packages/core/src/tools/evidence-adapter.ts';
import { buildToolJsonSchemas } from '../../../../packages/core/src/tools/tool-inputs.ts';
import { TOOL_JSON_SCHEMAS } from '../../../../packages/core/src/tools/tool-json-schemas.ts';

const entry = (name: string) => ({ name, description: name, params: {} }) as unknown as MysqlQueryDescriptor;

// A stale file (a tool's input schema changed since it was generated) fails here: run
// `node scripts/generate-json-schemas.ts`.
describe('TOOL_JSON_SCHEMAS', () => {
  it('is what valibot converts the envelopes to when the catalog has no queries', () => {
    expect(TOOL_JSON_SCHEMAS).toStrictEqual(deriveToolJsonSchemas([]));
  });
});

describe('buildToolJsonSchemas', () => {
  it('equals the conversion of the envelopes with the catalog’s names when the catalog has queries', () => {
    const example = JSON.parse(readFileSync('examples/mysql/catalog.json', 'utf8')) as { name: string }[];
    expect(example.length).toBeGreaterThan(1);
    const catalogs = [
      [],
      [entry('orders_by_status')],
      [entry('a'), entry('b'), entry('a')],
      example.map((query) => entry(query.name)),
    ];
    for (const catalog of catalogs) {
      expect(buildToolJsonSchemas(catalog)).toStrictEqual(deriveToolJsonSchemas(catalog.map((query) => query.name)));
    }
  });

  it('returns a fresh copy on every call when a caller changes one', () => {
    const first = buildToolJsonSchemas([entry('a')]) as { query_mysql: { type?: string } };
    first.query_mysql.type = 'changed';
    expect(buildToolJsonSchemas([entry('a')])).toStrictEqual(deriveToolJsonSchemas(['a']));
  });
});
