import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import type {
  AdapterResult,
  EvidenceAdapter,
  KnowledgeData,
  KnowledgeInput,
  ToolCallRequest,
} from '../evidence-adapter.ts';
import {
  buildKnowledgeIndexData,
  createKnowledgeIndex,
  type KnowledgeIndex,
  type RunbookFields,
} from './knowledge-index.ts';
import {
  decodeKnowledgeIndexFile,
  encodeKnowledgeIndexFile,
  type KnowledgeIndexFile,
  parseKnowledgeIndexFile,
} from './knowledge-index-file.ts';

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

const SNIPPET_CHARS = 600;

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
 * `lookup_knowledge` over local runbooks: an inverted index of documents (title and tags boosted), Chinese tokenized
 * as character bigrams, documents of the asked service boosted; the snippet is the document's passage (paragraph of
 * at most 600 characters) that shares the most query terms. A document with an `enterprise` is visible to that tenant
 * only. The runbooks or the index file are validated before this is called (at cold start); the index is built or
 * decoded on the first lookup, once.
 */
export function createLocalKnowledgeAdapter(
  source: readonly KnowledgeDocument[] | KnowledgeIndexFile,
  options: {
    defaultTopK?: number;
    /** Called once, when the first lookup has built or decoded the index. */
    onIndexLoaded?: () => void;
  } = {},
): EvidenceAdapter<KnowledgeInput, KnowledgeData> {
  const defaultTopK = options.defaultTopK ?? 3;
  let index: KnowledgeIndex | string | undefined;
  // NOTE: synchronous from the check to the assignment, so concurrent first lookups cannot build it twice.
  const loadedIndex = (): KnowledgeIndex | string => {
    if (index === undefined) {
      const data = isDocumentList(source)
        ? buildKnowledgeIndexData(source.map(runbookFields))
        : decodeKnowledgeIndexFile(source);
      index = typeof data === 'string' ? data : createKnowledgeIndex(data);
      options.onIndexLoaded?.();
    }
    return index;
  };

  return {
    async execute(call: ToolCallRequest<KnowledgeInput>): Promise<AdapterResult<KnowledgeData>> {
      if (call.signal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted before start' };
      const searchable = loadedIndex();
      if (typeof searchable === 'string') return { status: 'ERROR', code: 'UNAVAILABLE', detail: searchable };
      const hits = searchable.search({
        query: call.input.query,
        enterpriseId: call.enterpriseId,
        service: call.input.service?.toLowerCase(),
        topK: Math.min(5, Math.max(1, call.input.top_k ?? defaultTopK)),
      });
      return hits.length === 0 ? { status: 'EMPTY' } : { status: 'OK', data: { hits } };
    },
  };
}

function isDocumentList(
  source: readonly KnowledgeDocument[] | KnowledgeIndexFile,
): source is readonly KnowledgeDocument[] {
  return Array.isArray(source);
}

/** A runbook as the index reads it: its fields, its service lower-cased, its body split into passages. */
export function runbookFields(document: KnowledgeDocument): RunbookFields {
  return {
    docId: document.docId,
    title: document.title,
    service: document.service?.toLowerCase() ?? '',
    enterprise: document.enterprise ?? '',
    tags: document.tags.join(' '),
    text: document.body,
    passages: splitPassages(document.body),
  };
}

/** The index file `npm run knowledge:index` writes (format in knowledge-index-file.ts). */
export function buildKnowledgeIndexFile(documents: readonly KnowledgeDocument[]): Uint8Array {
  return encodeKnowledgeIndexFile(buildKnowledgeIndexData(documents.map(runbookFields)));
}

/**
 * Reads a prebuilt index and checks its header, size and checksum; a missing, foreign, truncated or damaged file fails
 * the cold start. Decoding is left to the first lookup. NOTE: read synchronously, like the MySQL catalog: once, at
 * cold start (see `readCatalogJson`).
 */
export async function loadKnowledgeIndexFile(path: string): Promise<KnowledgeIndexFile> {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new KnowledgeBaseError(['the knowledge index file is missing or unreadable']);
  }
  const file = parseKnowledgeIndexFile(bytes);
  if (typeof file === 'string') throw new KnowledgeBaseError([file]);
  return file;
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
