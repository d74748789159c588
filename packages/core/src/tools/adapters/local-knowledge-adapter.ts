import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MiniSearch from 'minisearch';
import * as v from 'valibot';
import { parse as parseYaml } from 'yaml';
import type {
  AdapterResult,
  EvidenceAdapter,
  KnowledgeData,
  KnowledgeHit,
  KnowledgeInput,
  ToolCallRequest,
} from '../evidence-adapter.ts';
import { tokenizeMixedText } from './cjk-tokenizer.ts';

const frontMatterSchema = v.strictObject({
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  service: v.exactOptional(v.pipe(v.string(), v.minLength(1), v.maxLength(100))),
  tags: v.exactOptional(v.array(v.pipe(v.string(), v.maxLength(50)))),
  enterprise: v.exactOptional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
});

/** One runbook: front matter (`title`, `service`, `tags`, optional `enterprise`) and a Markdown body. */
export interface KnowledgeDocument {
  docId: string;
  title: string;
  service?: string;
  tags: readonly string[];
  /** Only this tenant may see a document that names one. */
  enterprise?: string;
  body: string;
}

interface IndexedDocument {
  id: number;
  docId: string;
  title: string;
  tags: string;
  text: string;
  service: string;
  enterprise: string;
}

const SNIPPET_CHARS = 600;
const SERVICE_BOOST = 2;

/** The folder's runbooks were refused; `faults` names each file and problem. */
export class KnowledgeBaseError extends Error {
  override readonly name = 'KnowledgeBaseError';
  readonly faults: readonly string[];

  constructor(faults: string[]) {
    super(`the knowledge base is invalid: ${faults.join('; ')}`);
    this.faults = faults;
  }
}

/** Reads every `*.md` runbook of a folder (front matter validated); meant to run once per cold start. */
export async function loadKnowledgeDocuments(directory: string): Promise<KnowledgeDocument[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.md')).sort();
  const faults: string[] = [];
  const documents: KnowledgeDocument[] = [];
  for (const name of names) {
    const parsed = parseRunbook(name.replace(/\.md$/, ''), await readFile(join(directory, name), 'utf8'));
    if (typeof parsed === 'string') faults.push(`${name}: ${parsed}`);
    else documents.push(parsed);
  }
  if (faults.length > 0) throw new KnowledgeBaseError(faults);
  return documents;
}

/** Parses one runbook's text; a string result is the fault. */
export function parseRunbook(docId: string, text: string): KnowledgeDocument | string {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (match === null) return 'missing front matter';
  let meta: unknown;
  try {
    meta = parseYaml(match[1] ?? '');
  } catch {
    return 'front matter is not YAML';
  }
  const result = v.safeParse(frontMatterSchema, meta);
  if (!result.success) return `front matter: ${result.issues[0]?.message ?? 'invalid'}`;
  const { title, service, tags, enterprise } = result.output;
  return {
    docId,
    title,
    tags: tags ?? [],
    body: match[2] ?? '',
    ...(service === undefined ? {} : { service }),
    ...(enterprise === undefined ? {} : { enterprise }),
  };
}

/**
 * `lookup_knowledge` over local runbooks: a MiniSearch index of documents (title and tags boosted), Chinese tokenized
 * as character bigrams, documents of the asked service boosted; the snippet is the document's passage (paragraph of
 * at most 600 characters) that shares the most query terms. A document with an `enterprise` is visible to that tenant
 * only. The index is built once, when the adapter is created.
 */
export function createLocalKnowledgeAdapter(
  documents: readonly KnowledgeDocument[],
  options: { defaultTopK?: number } = {},
): EvidenceAdapter<KnowledgeInput, KnowledgeData> {
  const index = buildKnowledgeIndex(documents);
  const defaultTopK = options.defaultTopK ?? 3;

  return {
    async execute(call: ToolCallRequest<KnowledgeInput>): Promise<AdapterResult<KnowledgeData>> {
      if (call.signal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted before start' };
      const topK = Math.min(5, Math.max(1, call.input.top_k ?? defaultTopK));
      const service = call.input.service?.toLowerCase();
      const results = index.search(call.input.query, {
        filter: (result) => result.enterprise === '' || result.enterprise === call.enterpriseId,
        boostDocument: (_id, _term, stored) =>
          service !== undefined && stored?.service === service ? SERVICE_BOOST : 1,
      });
      const queryTerms = new Set(tokenizeMixedText(call.input.query));
      const hits: KnowledgeHit[] = results.slice(0, topK).map((result) => ({
        doc_id: result.docId,
        title: result.title,
        snippet: bestPassage(index.passages(result.docId), queryTerms),
        score: Math.round(result.score * 1_000) / 1_000,
        ...(result.service === '' ? {} : { service: result.service }),
      }));
      return hits.length === 0 ? { status: 'EMPTY' } : { status: 'OK', data: { hits } };
    },
  };
}

type StoredDocument = Pick<IndexedDocument, 'docId' | 'title' | 'service' | 'enterprise'>;

export function buildKnowledgeIndex(documents: readonly KnowledgeDocument[]) {
  const index = new MiniSearch<IndexedDocument>({
    fields: ['title', 'tags', 'text'],
    storeFields: ['docId', 'title', 'service', 'enterprise'],
    tokenize: tokenizeMixedText,
    processTerm: (term) => term,
    searchOptions: {
      boost: { title: 3, tags: 2 },
      combineWith: 'OR',
      tokenize: tokenizeMixedText,
      processTerm: (term) => term,
    },
  });
  const passages = new Map<string, string[]>();
  index.addAll(
    documents.map((document, id) => {
      passages.set(document.docId, splitPassages(document.body));
      return {
        id,
        docId: document.docId,
        title: document.title,
        tags: document.tags.join(' '),
        text: document.body,
        service: document.service?.toLowerCase() ?? '',
        enterprise: document.enterprise ?? '',
      };
    }),
  );
  return {
    passages: (docId: string) => passages.get(docId) ?? [],
    search: (
      query: string,
      options: {
        filter: (result: StoredDocument) => boolean;
        boostDocument: (id: unknown, term: string, stored?: Record<string, unknown>) => number;
      },
    ) =>
      index.search(query, {
        filter: (result) => options.filter(result as unknown as StoredDocument),
        boostDocument: options.boostDocument,
      }) as unknown as (StoredDocument & { score: number })[],
  };
}

/** The passage sharing the most distinct query terms (the first one on a tie), cut to 600 characters. */
function bestPassage(passages: readonly string[], queryTerms: ReadonlySet<string>): string {
  let best = passages[0] ?? '';
  let bestScore = -1;
  for (const passage of passages) {
    let score = 0;
    for (const term of new Set(tokenizeMixedText(passage))) if (queryTerms.has(term)) score += 1;
    if (score > bestScore) {
      best = passage;
      bestScore = score;
    }
  }
  return best.slice(0, SNIPPET_CHARS);
}

/** Paragraphs (blank-line separated, headings kept with what follows), each cut to at most 600 characters. */
export function splitPassages(body: string): string[] {
  const passages: string[] = [];
  let heading = '';
  for (const block of body.split(/\r?\n\s*\r?\n/)) {
    const text = block.trim();
    if (text.length === 0) continue;
    if (/^#{1,6}\s/.test(text) && !text.includes('\n')) {
      heading = text.replace(/^#{1,6}\s+/, '');
      continue;
    }
    const withHeading = heading.length > 0 ? `${heading}：${text}` : text;
    for (let start = 0; start < withHeading.length; start += SNIPPET_CHARS) {
      passages.push(withHeading.slice(start, start + SNIPPET_CHARS));
    }
  }
  return passages;
}
