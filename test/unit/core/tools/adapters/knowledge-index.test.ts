import { createHash } from 'node:crypto';
import {
  buildKnowledgeIndexFile,
  createLocalKnowledgeAdapter,
  type KnowledgeDocument,
  loadKnowledgeDocuments,
  parseKnowledgeIndexFile,
  splitPassages,
  tokenizeMixedText,
} from '@diagnosis/core/adapters';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import { generateRunbooks } from '../../../../support/generated-runbooks.ts';
import { examplePath, toolCall } from '../../../../support/tool-call.ts';

const examples = await loadKnowledgeDocuments(examplePath('knowledge'));
const generated = generateRunbooks(examples, { count: 300, queries: 60, seed: 3 });

/**
 * The MiniSearch 7.2 index the local adapter used before (same options, same filter and service boost): the oracle
 * the new index must match, document for document and score for score.
 */
function miniSearchOracle(documents: readonly KnowledgeDocument[]) {
  const tokenize = { tokenize: tokenizeMixedText, processTerm: (term: string) => term };
  const index = new MiniSearch({
    fields: ['title', 'tags', 'text'],
    storeFields: ['docId', 'title', 'service', 'enterprise'],
    ...tokenize,
    searchOptions: { boost: { title: 3, tags: 2 }, combineWith: 'OR', ...tokenize },
  });
  index.addAll(
    documents.map((document, id) => ({
      id,
      docId: document.docId,
      title: document.title,
      tags: document.tags.join(' '),
      text: document.body,
      service: document.service?.toLowerCase() ?? '',
      enterprise: document.enterprise ?? '',
    })),
  );
  return (query: string, enterpriseId: string, service: string | undefined, topK: number) =>
    index
      .search(query, {
        filter: (result) => result.enterprise === '' || result.enterprise === enterpriseId,
        boostDocument: (_id, _term, stored) => (service !== undefined && stored?.service === service ? 2 : 1),
      })
      .slice(0, topK)
      .map((result) => ({ doc_id: result.docId as string, score: Math.round(result.score * 1_000) / 1_000 }));
}

async function rankings(documents: readonly KnowledgeDocument[], queries: readonly string[]) {
  const oracle = miniSearchOracle(documents);
  const adapter = createLocalKnowledgeAdapter(documents);
  const cases: { expected: unknown; actual: unknown }[] = [];
  for (const query of queries) {
    for (const enterpriseId of ['E1001', 'E2002', 'E3003']) {
      for (const service of [undefined, 'payment-gateway', 'order-service']) {
        const input = { query, top_k: 5, ...(service === undefined ? {} : { service }) };
        const result = await adapter.execute(toolCall('lookup_knowledge', input, { enterpriseId }));
        cases.push({
          expected: oracle(query, enterpriseId, service, 5),
          actual: result.status === 'OK' ? result.data.hits.map(({ doc_id, score }) => ({ doc_id, score })) : [],
        });
      }
    }
  }
  return cases;
}

describe('the local knowledge index', () => {
  it('ranks the example world exactly as the MiniSearch index it replaced (documents and scores)', async () => {
    const queries = [
      ...examples.map((example) => example.title),
      '订单支付超时连接池耗尽怎么办',
      '发布以后怎么回滚',
      '支付故障升级联系人',
      'E2002 结算对账 redis pool busy',
      '支付支付 pool pool 网关',
      '超时 配置',
      '服务 日志 排查',
      '池',
    ];
    for (const { expected, actual } of await rankings(examples, queries)) expect(actual).toEqual(expected);
  });

  it('ranks 300 generated runbooks exactly as MiniSearch for 60 generated queries, three tenants, with and without a service', async () => {
    const cases = await rankings(generated.documents, generated.queries);
    expect(cases.filter(({ actual }) => (actual as unknown[]).length > 0).length).toBeGreaterThan(cases.length / 2);
    for (const { expected, actual } of cases) expect(actual).toEqual(expected);
  });

  it('chooses each snippet by the passage’s own terms, whatever searches came before (passage terms are kept)', async () => {
    // The oracle: the passage sharing the most distinct query terms, the first on a tie, cut to 600 characters.
    const expectedSnippet = (docId: string, query: string) => {
      const document = generated.documents.find((candidate) => candidate.docId === docId);
      const queryTerms = new Set(tokenizeMixedText(query));
      let best = '';
      let bestScore = -1;
      for (const passage of splitPassages(document?.body ?? '')) {
        const score = [...new Set(tokenizeMixedText(passage))].filter((term) => queryTerms.has(term)).length;
        if (score > bestScore) [best, bestScore] = [passage, score];
      }
      return best.slice(0, 600);
    };
    const adapter = createLocalKnowledgeAdapter(generated.documents);
    const queries = generated.queries.slice(0, 20);
    let compared = 0;
    for (const query of [...queries, ...queries.toReversed()]) {
      const result = await adapter.execute(
        toolCall('lookup_knowledge', { query, top_k: 5 }, { enterpriseId: 'E1001' }),
      );
      for (const hit of result.status === 'OK' ? result.data.hits : []) {
        expect(hit.snippet).toBe(expectedSnippet(hit.doc_id, query));
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(100);
  });

  it('never returns another enterprise’s runbook, whatever the query', async () => {
    const owners = new Map(generated.documents.map((document) => [document.docId, document.enterprise ?? '']));
    const adapter = createLocalKnowledgeAdapter(generated.documents);
    for (const query of generated.queries.slice(0, 40)) {
      const result = await adapter.execute(
        toolCall('lookup_knowledge', { query, top_k: 5 }, { enterpriseId: 'E1001' }),
      );
      for (const hit of result.status === 'OK' ? result.data.hits : []) {
        expect(['', 'E1001']).toContain(owners.get(hit.doc_id));
      }
    }
  });

  it('answers UNAVAILABLE, without throwing, from a file that passes its checksum but holds inconsistent postings', async () => {
    const bytes = buildKnowledgeIndexFile(examples);
    const view = new DataView(bytes.buffer);
    const jsonBytes = view.getUint32(24, true);
    const termCount = view.getUint32(16, true);
    // The first posting's runbook number, set past the last runbook; the checksum recomputed as a faulty tool would.
    view.setUint32(64 + ((jsonBytes + 3) & ~3) + 4 * (termCount * 3 + 1), 1_000, true);
    bytes.set(createHash('sha256').update(bytes.subarray(64)).digest(), 32);
    const file = parseKnowledgeIndexFile(bytes);
    expect(typeof file).not.toBe('string');
    if (typeof file === 'string') return;
    const adapter = createLocalKnowledgeAdapter(file);
    expect(await adapter.execute(toolCall('lookup_knowledge', { query: '连接池' }))).toEqual({
      status: 'ERROR',
      code: 'UNAVAILABLE',
      detail: 'the knowledge index file’s postings are inconsistent',
    });
  });
  it('answers UNAVAILABLE from a file that passes its checksum but whose JSON has another shape', async () => {
    const bytes = buildKnowledgeIndexFile(examples);
    const at = Buffer.from(bytes).indexOf('"runbooks"');
    expect(at).toBeGreaterThan(64);
    bytes.set(new TextEncoder().encode('"runbookz"'), at);
    bytes.set(createHash('sha256').update(bytes.subarray(64)).digest(), 32);
    const file = parseKnowledgeIndexFile(bytes);
    if (typeof file === 'string') throw new Error(file);
    const result = await createLocalKnowledgeAdapter(file).execute(toolCall('lookup_knowledge', { query: '连接池' }));
    expect(result).toMatchObject({ status: 'ERROR', code: 'UNAVAILABLE' });
    expect(JSON.stringify(result)).toContain('do not match its header');
  });
});

describe('generateRunbooks', () => {
  it('generates the same corpus from the same seed, with bodies as long as the examples’', () => {
    const again = generateRunbooks(examples, { count: 300, queries: 60, seed: 3 });
    expect(again).toEqual(generated);
    const mean = (lengths: number[]) => lengths.reduce((sum, length) => sum + length, 0) / lengths.length;
    const generatedMean = mean(generated.documents.map((document) => document.body.length));
    const exampleMean = mean(examples.map((example) => example.body.length));
    expect(Math.abs(generatedMean - exampleMean) / exampleMean).toBeLessThan(0.15);
  });
});
