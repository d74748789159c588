/**
 * NOTE: about 300 lines on purpose: the runbook format (front matter, tenant visibility), the index (build, prebuilt
 * load and its validation) and the query (service boost, best passage) are one adapter whose parts must agree.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import MiniSearch, { type Options } from 'minisearch';
import * as v from 'valibot';
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
    const parsed = await parseRunbook(name.replace(/\.md$/, ''), await readFile(join(directory, name), 'utf8'));
    if (typeof parsed === 'string') faults.push(`${name}: ${parsed}`);
    else documents.push(parsed);
  }
  if (faults.length > 0) throw new KnowledgeBaseError(faults);
  return documents;
}

/** Parses one runbook's text; a string result is the fault. */
export async function parseRunbook(docId: string, text: string): Promise<KnowledgeDocument | string> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  if (match === null) return 'missing front matter';
  let meta: unknown = parseSimpleFrontMatter(match[1] ?? '');
  if (meta === undefined) {
    try {
      // NOTE: the YAML engine is loaded only for front matter beyond `key: value` lines (cold start stays small).
      const { parse } = await import('yaml');
      meta = parse(match[1] ?? '');
    } catch {
      return 'front matter is not YAML';
    }
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

const SIMPLE_LINE = /^([A-Za-z_][A-Za-z0-9_]*):[ \t]*(.*?)[ \t]*$/;
const PLAIN_SCALAR = /^[^\s'"[\]{}#&*!|>%@`,][^#]*$/;

/**
 * The common front matter shape — `key: plain text` and `key: [a, b]` lines — parsed without a YAML engine. Anything
 * else (quotes, block lists, nesting, comments, duplicates) returns undefined and goes to the full YAML parser.
 */
export function parseSimpleFrontMatter(text: string): Record<string, unknown> | undefined {
  const result: Record<string, unknown> = {};
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const match = SIMPLE_LINE.exec(line);
    if (match === null) return undefined;
    const [, key = '', raw = ''] = match;
    if (Object.hasOwn(result, key)) return undefined;
    if (raw.startsWith('[') && raw.endsWith(']')) {
      const items = raw
        .slice(1, -1)
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item.length > 0);
      if (!items.every((item) => PLAIN_SCALAR.test(item))) return undefined;
      result[key] = items;
    } else if (PLAIN_SCALAR.test(raw) && !/^(true|false|null|~|[-+.\d].*)$/i.test(raw) && !raw.includes(': ')) {
      result[key] = raw;
    } else {
      return undefined;
    }
  }
  return result;
}

/**
 * `lookup_knowledge` over local runbooks: a MiniSearch index of documents (title and tags boosted), Chinese tokenized
 * as character bigrams, documents of the asked service boosted; the snippet is the document's passage (paragraph of
 * at most 600 characters) that shares the most query terms. A document with an `enterprise` is visible to that tenant
 * only. The index is built once, when the adapter is created.
 */
export function createLocalKnowledgeAdapter(
  source: readonly KnowledgeDocument[] | KnowledgeSnapshot,
  options: { defaultTopK?: number } = {},
): EvidenceAdapter<KnowledgeInput, KnowledgeData> {
  const index = isSnapshot(source) ? knowledgeIndexFromSnapshot(source) : buildKnowledgeIndex(source);
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

const INDEX_OPTIONS: Options<IndexedDocument> = {
  fields: ['title', 'tags', 'text'],
  storeFields: ['docId', 'title', 'service', 'enterprise'],
  tokenize: tokenizeMixedText,
  processTerm: (term: string) => term,
  searchOptions: {
    boost: { title: 3, tags: 2 },
    combineWith: 'OR',
    tokenize: tokenizeMixedText,
    processTerm: (term: string) => term,
  },
};

/**
 * A knowledge index prebuilt at deploy time (`npm run knowledge:index`): the documents' passages and MiniSearch's
 * serialized index, loaded at cold start instead of reading and indexing every runbook (see BENCHMARKS.md).
 */
export interface KnowledgeSnapshot {
  format: 'diagnosis-knowledge-index';
  version: 1;
  passages: Record<string, string[]>;
  index: unknown;
}

function isSnapshot(source: readonly KnowledgeDocument[] | KnowledgeSnapshot): source is KnowledgeSnapshot {
  return !Array.isArray(source);
}

export function buildKnowledgeSnapshot(documents: readonly KnowledgeDocument[]): KnowledgeSnapshot {
  const { miniSearch, passages } = indexDocuments(documents);
  return {
    format: 'diagnosis-knowledge-index',
    version: 1,
    passages: Object.fromEntries(passages),
    index: miniSearch.toJSON(),
  };
}

const snapshotSchema = v.strictObject({
  format: v.literal('diagnosis-knowledge-index'),
  version: v.literal(1),
  passages: v.record(v.string(), v.array(v.string())),
  index: v.looseObject({ documentCount: v.number() }),
});

/** Reads a prebuilt index; a missing or malformed file fails the cold start. */
export async function loadKnowledgeSnapshot(path: string): Promise<KnowledgeSnapshot> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    throw new KnowledgeBaseError(['the knowledge index file is missing or not JSON']);
  }
  const result = v.safeParse(snapshotSchema, json);
  if (!result.success) throw new KnowledgeBaseError(['the knowledge index file is not a diagnosis knowledge index']);
  return result.output as KnowledgeSnapshot;
}

function indexDocuments(documents: readonly KnowledgeDocument[]) {
  const miniSearch = new MiniSearch<IndexedDocument>(INDEX_OPTIONS);
  const passages = new Map<string, string[]>();
  miniSearch.addAll(
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
  return { miniSearch, passages };
}

export function buildKnowledgeIndex(documents: readonly KnowledgeDocument[]) {
  const { miniSearch, passages } = indexDocuments(documents);
  return searchable(miniSearch, passages);
}

function knowledgeIndexFromSnapshot(snapshot: KnowledgeSnapshot) {
  let miniSearch: MiniSearch<IndexedDocument>;
  try {
    miniSearch = MiniSearch.loadJS(snapshot.index as Parameters<typeof MiniSearch.loadJS>[0], INDEX_OPTIONS);
  } catch {
    throw new KnowledgeBaseError(['the knowledge index cannot be loaded (built by another version?)']);
  }
  return searchable(miniSearch, new Map(Object.entries(snapshot.passages)));
}

function searchable(miniSearch: MiniSearch<IndexedDocument>, passages: ReadonlyMap<string, string[]>) {
  return {
    passages: (docId: string) => passages.get(docId) ?? [],
    search: (
      query: string,
      options: {
        filter: (result: StoredDocument) => boolean;
        boostDocument: (id: unknown, term: string, stored?: Record<string, unknown>) => number;
      },
    ) =>
      miniSearch.search(query, {
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
