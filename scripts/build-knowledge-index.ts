/**
 * `npm run knowledge:index [-- <runbook folder> <output file>]`: prebuilds the local knowledge index, so that a cold
 * start checks one file's header and checksum instead of reading and indexing every runbook, and the first lookup
 * maps it without re-inserting anything. sst.config.ts runs it at deploy time.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildKnowledgeIndexFile, loadKnowledgeDocuments } from '@diagnosis/core/adapters';

/** Where sst.config.ts writes the index and the function finds it (`KNOWLEDGE_INDEX_PATH`). */
export const KNOWLEDGE_INDEX_FILE = '.data/knowledge-index.bin';

export async function writeKnowledgeIndex(directory: string, output: string): Promise<number> {
  const documents = await loadKnowledgeDocuments(directory);
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, buildKnowledgeIndexFile(documents));
  return documents.length;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [directory = 'examples/knowledge', output = KNOWLEDGE_INDEX_FILE] = process.argv.slice(2);
  const count = await writeKnowledgeIndex(directory, output);
  console.log(`indexed ${count} runbooks from ${directory} into ${output}`);
}
