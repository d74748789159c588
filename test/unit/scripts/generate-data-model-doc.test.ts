import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ITEM_KINDS } from '../../../functions/lambda/item-kinds.ts';
import { buildDataModelDoc, buildItemTables, DATA_MODEL_DOC } from '../../../scripts/generate-data-model-doc.ts';

describe('buildDataModelDoc', () => {
  it('is exactly the committed docs/data-model.md, so the item tables cannot drift from the registry', () => {
    const committed = readFileSync(DATA_MODEL_DOC, 'utf8');

    expect(committed, 'docs/data-model.md differs from the item registry: run `npm run docs:data-model`').toBe(
      buildDataModelDoc(committed),
    );
  });

  it('lists every kind of the registry once, in its group’s table, and refuses a page without its markers', () => {
    const tables = buildItemTables();

    for (const kind of ITEM_KINDS) expect(tables.split(`| ${kind.item} `).length - 1, kind.item).toBe(1);
    expect(tables.match(/^\| [^-]/gm)).toHaveLength(ITEM_KINDS.length + 3);
    expect(() => buildDataModelDoc('# The data model\n')).toThrow('markers are missing');
  });
});
