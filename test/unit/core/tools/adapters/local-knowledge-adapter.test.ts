import { readdirSync, readFileSync } from 'node:fs';
import type { KnowledgeData } from '@diagnosis/core';
import {
  buildKnowledgeIndexFile,
  createLocalKnowledgeAdapter,
  KnowledgeBaseError,
  loadKnowledgeDocuments,
  loadKnowledgeIndexFile,
  parseRunbook,
  parseSimpleFrontMatter,
  tokenizeMixedText,
} from '@diagnosis/core/adapters';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { tempDir } from '../../../../support/temp-dir.ts';
import { examplePath, toolCall } from '../../../../support/tool-call.ts';

const documents = await loadKnowledgeDocuments(examplePath('knowledge'));
const adapter = createLocalKnowledgeAdapter(documents);
const search = async (query: string, options: { service?: string; top_k?: number; enterpriseId?: string } = {}) => {
  const { enterpriseId, ...input } = options;
  const result = await adapter.execute(
    toolCall('lookup_knowledge', { query, ...input }, enterpriseId === undefined ? {} : { enterpriseId }),
  );
  return result.status === 'OK' ? (result.data as KnowledgeData).hits : [];
};

describe('tokenizeMixedText', () => {
  it('turns Chinese runs into character bigrams and keeps Latin words', () => {
    expect(tokenizeMixedText('支付网关 HikariPool timeout')).toEqual(['支付', '付网', '网关', 'hikaripool', 'timeout']);
  });
  it('keeps a lone Chinese character as a unigram', () => {
    expect(tokenizeMixedText('池 pool')).toEqual(['池', 'pool']);
  });
});

describe('createLocalKnowledgeAdapter on the example runbooks', () => {
  it('finds the connection pool runbook first for a Chinese question without spaces', async () => {
    const [first] = await search('订单支付超时连接池耗尽怎么办');
    expect(first?.doc_id).toBe('payment-gateway-db-pool');
    expect(first?.title).toBe('支付网关数据库连接池耗尽排查手册');
    expect(first?.service).toBe('payment-gateway');
  });

  it('finds the rollback procedure for 回滚', async () => {
    expect((await search('发布以后怎么回滚'))[0]?.doc_id).toBe('deploy-rollback');
  });

  it('returns the best-matching passage as the snippet, at most 600 characters', async () => {
    const [first] = await search('连接池 统计 waiting active');
    expect(first?.snippet.length).toBeLessThanOrEqual(600);
    expect(first?.snippet).toContain('waiting');
  });

  it('boosts documents of the asked service', async () => {
    const plain = await search('超时 配置', { top_k: 5 });
    const boosted = await search('超时 配置', { service: 'payment-gateway', top_k: 5 });
    expect(boosted[0]?.service).toBe('payment-gateway');
    expect(plain.map((hit) => hit.doc_id)).not.toEqual(boosted.map((hit) => hit.doc_id));
  });

  it('returns at most top_k distinct documents', async () => {
    const hits = await search('服务 日志 排查', { top_k: 2 });
    expect(hits).toHaveLength(2);
    expect(new Set(hits.map((hit) => hit.doc_id)).size).toBe(2);
  });

  it('answers EMPTY when nothing matches', async () => {
    expect(await adapter.execute(toolCall('lookup_knowledge', { query: 'kubernetes helm chart' }))).toEqual({
      status: 'EMPTY',
    });
  });

  describe('tenant scope comes from the run', () => {
    it('shows a tenant’s own runbook to that tenant only', async () => {
      const own = await search('支付故障升级联系人', { enterpriseId: 'E1001' });
      const other = await search('支付故障升级联系人', { enterpriseId: 'E2002' });
      expect(own.map((hit) => hit.doc_id)).toContain('e1001-payment-escalation');
      expect(other.map((hit) => hit.doc_id)).not.toContain('e1001-payment-escalation');
    });

    it('never shows E2002’s runbook to E1001, even when the query names E2002', async () => {
      const hits = await search('E2002 结算对账 redis pool busy', { enterpriseId: 'E1001', top_k: 5 });
      expect(hits.map((hit) => hit.doc_id)).not.toContain('e2002-settlement-reconciliation');
      expect(JSON.stringify(hits)).not.toContain('E2002');
    });
  });
});

describe('parseRunbook and loadKnowledgeDocuments', () => {
  it.each([
    ['no front matter', '# 标题\n正文'],
    ['front matter that is not YAML', '---\ntitle: [unclosed\n---\n正文'],
    ['a missing title', '---\nservice: x\n---\n正文'],
    ['an unknown key', '---\ntitle: t\nowner: me\n---\n正文'],
  ])('refuses a runbook with %s', async (_label, text) => {
    expect(typeof (await parseRunbook('doc', text))).toBe('string');
  });

  it('refuses a folder that holds a bad runbook, naming the file', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const directory = await tempDir('kb-');
    await writeFile(join(directory, 'bad.md'), 'no front matter');
    await expect(loadKnowledgeDocuments(directory)).rejects.toBeInstanceOf(KnowledgeBaseError);
    await expect(loadKnowledgeDocuments(directory)).rejects.toThrow('bad.md');
  });
});

describe('parseSimpleFrontMatter', () => {
  it('agrees with the YAML parser on every example runbook', () => {
    const directory = examplePath('knowledge');
    for (const name of readdirSync(directory)) {
      const frontMatter = /^---\n([\s\S]*?)\n---/.exec(readFileSync(`${directory}/${name}`, 'utf8'))?.[1] ?? '';
      expect(parseSimpleFrontMatter(frontMatter), name).toEqual(parseYaml(frontMatter));
    }
  });

  it.each([
    ['a quoted value', 'title: "支付: 手册"'],
    ['a block list', 'tags:\n  - a\n  - b'],
    ['a comment', 'title: t # note'],
    ['a number', 'title: 42'],
    ['a boolean', 'title: true'],
    ['a nested map', 'owner:\n  name: x'],
    ['a duplicate key', 'title: a\ntitle: b'],
    ['a value with a colon', 'title: a: b'],
  ])('leaves %s to the YAML parser', (_label, text) => {
    expect(parseSimpleFrontMatter(text)).toBeUndefined();
  });

  it('parses front matter that needs the YAML parser the same way through parseRunbook', async () => {
    const parsed = await parseRunbook('doc', '---\ntitle: "支付: 手册"\ntags:\n  - 支付\n---\n正文');
    expect(parsed).toMatchObject({ title: '支付: 手册', tags: ['支付'], body: '正文' });
  });
});

describe('a knowledge index prebuilt at deploy time (buildKnowledgeIndexFile / loadKnowledgeIndexFile)', () => {
  const writeIndex = async (bytes: Uint8Array | string | null) => {
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const path = join(await tempDir('kb-index-'), 'knowledge-index.bin');
    if (bytes !== null) await writeFile(path, bytes);
    return path;
  };

  it('answers every query exactly as the index built from the runbooks, for each tenant', async () => {
    const fromFile = createLocalKnowledgeAdapter(
      await loadKnowledgeIndexFile(await writeIndex(buildKnowledgeIndexFile(documents))),
    );
    const queries = [
      '订单支付超时连接池耗尽怎么办',
      '发布以后怎么回滚',
      '支付故障升级联系人',
      'E2002 结算对账',
      '库存同步',
      'kubernetes',
    ];
    for (const query of queries) {
      for (const enterpriseId of ['E1001', 'E2002']) {
        for (const service of [undefined, 'payment-gateway']) {
          const input = { query, top_k: 5, ...(service === undefined ? {} : { service }) };
          expect(await fromFile.execute(toolCall('lookup_knowledge', input, { enterpriseId }))).toEqual(
            await adapter.execute(toolCall('lookup_knowledge', input, { enterpriseId })),
          );
        }
      }
    }
  });

  it('writes the index with the build script and finds the same runbooks from it', async () => {
    const { writeKnowledgeIndex } = await import('../../../../../scripts/build-knowledge-index.ts');
    const path = await writeIndex(null);
    expect(await writeKnowledgeIndex(examplePath('knowledge'), path)).toBe(documents.length);
    const fromFile = createLocalKnowledgeAdapter(await loadKnowledgeIndexFile(path));
    const result = await fromFile.execute(toolCall('lookup_knowledge', { query: '订单支付超时连接池耗尽怎么办' }));
    expect(result.status === 'OK' ? result.data.hits[0]?.doc_id : result.status).toBe('payment-gateway-db-pool');
  });

  const valid = buildKnowledgeIndexFile(documents);
  const damaged = (change: (bytes: Uint8Array) => void) => {
    const bytes = valid.slice();
    change(bytes);
    return bytes;
  };
  it.each([
    ['a missing file', null, 'missing'],
    ['a JSON document (the old format)', JSON.stringify({ format: 'diagnosis-knowledge-index', version: 1 }), 'not a'],
    ['an empty file', '', 'not a'],
    ['a file of another format version', damaged((bytes) => bytes.set([1], 8)), 'version 1'],
    ['a truncated file', valid.slice(0, valid.length - 4), 'truncated'],
    ['a file with trailing bytes', new Uint8Array([...valid, 0, 0, 0, 0]), 'truncated'],
    ['a file with one byte flipped', damaged((bytes) => bytes.set([(bytes[200] ?? 0) ^ 1], 200)), 'checksum'],
    ['a file whose checksum is damaged', damaged((bytes) => bytes.set([(bytes[40] ?? 0) ^ 1], 40)), 'checksum'],
    ['a header with absurd counts', damaged((bytes) => bytes.set([0xff, 0xff, 0xff, 0xff], 12)), 'header'],
  ])('refuses %s at load, naming the fault but no path', async (_label, content, fault) => {
    const path = await writeIndex(content);
    const refusal = await loadKnowledgeIndexFile(path).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(KnowledgeBaseError);
    expect((refusal as KnowledgeBaseError).faults.join()).toContain(fault);
    expect((refusal as Error).message).not.toContain(path);
  });

  it('builds the index on the first lookup, once, even when the first lookups come together', async () => {
    let loads = 0;
    const lazy = createLocalKnowledgeAdapter(await loadKnowledgeIndexFile(await writeIndex(valid)), {
      onIndexLoaded: () => {
        loads += 1;
      },
    });
    expect(loads).toBe(0);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => lazy.execute(toolCall('lookup_knowledge', { query: '发布以后怎么回滚' }))),
    );
    expect(loads).toBe(1);
    for (const result of results) expect(result).toEqual(results[0]);
    await lazy.execute(toolCall('lookup_knowledge', { query: '连接池' }));
    expect(loads).toBe(1);
  });

  it('builds an index from runbooks on the first lookup too, not when the adapter is created', async () => {
    let loads = 0;
    const lazy = createLocalKnowledgeAdapter(documents, { onIndexLoaded: () => (loads += 1) });
    expect(loads).toBe(0);
    await lazy.execute(toolCall('lookup_knowledge', { query: '连接池' }));
    expect(loads).toBe(1);
  });
});
