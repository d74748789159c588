import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ITEM_KINDS,
  type PartitionName,
  partitionPatterns,
  TABLE_PARTITIONS,
} from '../../../../functions/lambda/item-kinds.ts';

const ROOT = resolve(import.meta.dirname, '../../../..');

/** Whether a key matches a LeadingKeys pattern as IAM's StringLike does (`*`: any characters). */
const matches = (key: string, pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  ).test(key);

describe('ITEM_KINDS', () => {
  it('places each kind in a partition whose grant pattern covers its keys, and no other pattern does', () => {
    for (const kind of ITEM_KINDS) {
      const key = kind.pk.replaceAll(/<[^>]+>/g, 'E1001');
      const covering = (Object.keys(TABLE_PARTITIONS) as PartitionName[]).filter((name) =>
        matches(key, TABLE_PARTITIONS[name]),
      );
      expect(covering, kind.item).toEqual([kind.partition]);
    }
  });

  it('gives every partition a kind, and every kind a module that builds it under its entity', () => {
    const used = new Set(ITEM_KINDS.map((kind) => kind.partition));
    expect(Object.keys(TABLE_PARTITIONS).filter((name) => !used.has(name as PartitionName))).toEqual([]);
    for (const kind of ITEM_KINDS) {
      expect(existsSync(resolve(ROOT, kind.module)), kind.module).toBe(true);
      const entity = /\(`([a-z_]+)`\)/.exec(kind.item)?.[1];
      if (entity !== undefined)
        expect(readFileSync(resolve(ROOT, kind.module), 'utf8'), kind.item).toContain(`'${entity}'`);
    }
  });
});

describe('partitionPatterns', () => {
  it('names the LeadingKeys pattern of each partition', () => {
    expect(partitionPatterns(['RUN', 'TENANT_OPEN', 'SLACK_CHANNEL'])).toEqual([
      'RUN#*',
      'TENANT#*#OPEN',
      'SLACKCHAN#*',
    ]);
  });
});
