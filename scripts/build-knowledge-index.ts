/**
 * `npm run knowledge:index [-- <runbook folder> <output file>]`: prebuilds the local knowledge index, so that a cold
 * start loads one JSON file instead of reading and indexing every runbook. sst.config.ts runs it at deploy time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildKnowledgeSnapshot, loadKnowledgeDocuments } from '@diagnosis/core/adapters';

export async function writeKnowledgeIndex(directory: string, output: string): Promise<number> {
  const documents = await loadKnowledgeDocuments(directory);
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, JSON.stringify(buildKnowledgeSnapshot(documents)));
  return documents.length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [directory = 'examples/knowledge', output = '.data/knowledge-index.json'] = process.argv.slice(2);
  const count = await writeKnowledgeIndex(directory, output);
  console.log(`indexed ${count} runbooks from ${directory} into ${output}`);
}
