import type { KnowledgeHit } from '../evidence-adapter.ts';
import { tokenizeMixedText } from './cjk-tokenizer.ts';

/** What the index keeps of one runbook to rank, filter and cite it. */
interface IndexedRunbook {
  docId: string;
  title: string;
  /** Lower-cased; '' when the runbook names none. */
  service: string;
  /** '' for a runbook every tenant may see. */
  enterprise: string;
}

/** The fields searched, in this order everywhere (postings, field lengths, boosts). */
const INDEXED_FIELDS = ['title', 'tags', 'text'] as const;
const FIELD_COUNT = INDEXED_FIELDS.length;
const FIELD_BOOSTS = [3, 2, 1] as const;
const SERVICE_BOOST = 2;
const SNIPPET_CHARS = 600;
// BM25+ parameters (MiniSearch's defaults, which this index reproduces score for score).
const K = 1.2;
const B = 0.7;
const D = 0.5;

/**
 * An inverted index in flat arrays: the postings of term `t` in field `f` are `postingDocs` / `postingFrequencies`
 * from `termFieldStart[t * 3 + f]` to `termFieldStart[t * 3 + f + 1]`, document numbers ascending. This is also the
 * shape of the index file, so loading it copies nothing and inserts nothing.
 */
export interface KnowledgeIndexData {
  runbooks: readonly IndexedRunbook[];
  /** Per runbook, its paragraphs (≤ 600 characters each), the snippets a hit may cite. */
  passages: readonly (readonly string[])[];
  /** Term number → term. */
  terms: readonly string[];
  /** Per field, the mean count of distinct terms, as MiniSearch computes it (a running mean). */
  averageFieldLength: readonly number[];
  termFieldStart: Uint32Array;
  postingDocs: Uint32Array;
  postingFrequencies: Uint32Array;
  /** Distinct terms of runbook `d` in field `f` at `d * 3 + f`. */
  fieldLengths: Uint32Array;
}

/** The fields of one runbook to index. */
export interface RunbookFields extends IndexedRunbook {
  tags: string;
  text: string;
  passages: string[];
}

/**
 * Builds the index in one pass over the runbooks: each field tokenized once, term frequencies counted per field, the
 * postings collected as (term, field, runbook, frequency) rows and then grouped by a counting sort.
 */
export function buildKnowledgeIndexData(runbooks: readonly RunbookFields[]): KnowledgeIndexData {
  const termIds = new Map<string, number>();
  const terms: string[] = [];
  let rows = new Uint32Array(1 << 16); // key, runbook, frequency
  let rowCount = 0;
  // Per term: its frequency in the field being indexed, and which field (runbook × 3 + field + 1) that was.
  let frequencies = new Uint32Array(1 << 12);
  let countedIn = new Uint32Array(1 << 12);
  const fieldTerms: number[] = [];
  const fieldLengths = new Uint32Array(runbooks.length * FIELD_COUNT);
  const averageFieldLength = [0, 0, 0];
  runbooks.forEach((runbook, doc) => {
    const values = [runbook.title, runbook.tags, runbook.text];
    for (let field = 0; field < FIELD_COUNT; field += 1) {
      const stamp = doc * FIELD_COUNT + field + 1;
      fieldTerms.length = 0;
      for (const term of tokenizeMixedText(values[field] ?? '')) {
        let termId = termIds.get(term);
        if (termId === undefined) {
          termId = terms.length;
          termIds.set(term, termId);
          terms.push(term);
          if (termId === frequencies.length) {
            frequencies = grow(frequencies, termId * 2);
            countedIn = grow(countedIn, termId * 2);
          }
        }
        if (countedIn[termId] !== stamp) {
          countedIn[termId] = stamp;
          frequencies[termId] = 0;
          fieldTerms.push(termId);
        }
        frequencies[termId] = (frequencies[termId] ?? 0) + 1;
      }
      fieldLengths[doc * FIELD_COUNT + field] = fieldTerms.length;
      // NOTE: the same running mean as MiniSearch, so that scores agree to the last bit.
      averageFieldLength[field] = ((averageFieldLength[field] ?? 0) * doc + fieldTerms.length) / (doc + 1);
      if (rows.length < (rowCount + fieldTerms.length) * 3) rows = grow(rows, (rowCount + fieldTerms.length) * 6);
      for (const termId of fieldTerms) {
        rows[rowCount * 3] = termId * FIELD_COUNT + field;
        rows[rowCount * 3 + 1] = doc;
        rows[rowCount * 3 + 2] = frequencies[termId] ?? 0;
        rowCount += 1;
      }
    }
  });
  const termFieldStart = new Uint32Array(terms.length * FIELD_COUNT + 1);
  for (let row = 0; row < rowCount; row += 1) {
    const key = (rows[row * 3] ?? 0) + 1;
    termFieldStart[key] = (termFieldStart[key] ?? 0) + 1;
  }
  for (let key = 1; key < termFieldStart.length; key += 1) {
    termFieldStart[key] = (termFieldStart[key] ?? 0) + (termFieldStart[key - 1] ?? 0);
  }
  const next = termFieldStart.slice(0, -1);
  const postingDocs = new Uint32Array(rowCount);
  const postingFrequencies = new Uint32Array(rowCount);
  for (let row = 0; row < rowCount; row += 1) {
    const key = rows[row * 3] ?? 0;
    const at = next[key] ?? 0;
    next[key] = at + 1;
    postingDocs[at] = rows[row * 3 + 1] ?? 0;
    postingFrequencies[at] = rows[row * 3 + 2] ?? 0;
  }
  return {
    runbooks: runbooks.map(({ docId, title, service, enterprise }) => ({ docId, title, service, enterprise })),
    passages: runbooks.map((runbook) => runbook.passages),
    terms,
    averageFieldLength,
    termFieldStart,
    postingDocs,
    postingFrequencies,
    fieldLengths,
  };
}

function grow(array: Uint32Array, length: number): Uint32Array<ArrayBuffer> {
  const grown = new Uint32Array(length);
  grown.set(array);
  return grown;
}

interface KnowledgeSearch {
  query: string;
  /** The run's tenant: runbooks of another enterprise are never scored into the results. */
  enterpriseId: string;
  /** Lower-cased; runbooks of this service score ×2. */
  service?: string | undefined;
  topK: number;
}

export interface KnowledgeIndex {
  search(request: KnowledgeSearch): KnowledgeHit[];
}

/**
 * Ranks runbooks as the MiniSearch index this replaces did, score for score: BM25+ (k 1.2, b 0.7, d 0.5) per query
 * term (repeats count again) and field, boosted title ×3, tags ×2, the asked service ×2, summed, then multiplied by
 * the number of distinct query terms matched; ties keep the order in which runbooks were first matched.
 */
export function createKnowledgeIndex(data: KnowledgeIndexData): KnowledgeIndex {
  const termIds = new Map<string, number>();
  data.terms.forEach((term, termId) => {
    termIds.set(term, termId);
  });
  const documentCount = data.runbooks.length;
  // Services and enterprises as small numbers, compared in the inner loop instead of strings.
  const serviceNumbers = new Map<string, number>();
  const enterpriseNumbers = new Map<string, number>([['', 0]]);
  const serviceOf = new Int32Array(documentCount);
  const enterpriseOf = new Int32Array(documentCount);
  data.runbooks.forEach((runbook, doc) => {
    serviceOf[doc] = numberOf(serviceNumbers, runbook.service);
    enterpriseOf[doc] = numberOf(enterpriseNumbers, runbook.enterprise);
  });
  const { termFieldStart, postingDocs, postingFrequencies, fieldLengths } = data;
  // NOTE: scratch arrays reused by every search; a search runs synchronously, so calls never interleave.
  const totals = new Float64Array(documentCount);
  const termScores = new Float64Array(documentCount);
  const distinctMatched = new Uint32Array(documentCount);
  const lastTerm = new Int32Array(documentCount);
  const touched: number[] = [];
  const termTouched: number[] = [];
  // NOTE: each passage's distinct terms, tokenized at its first snippet choice and kept with the index (whose own
  // size bounds them): a warm function's later searches do not tokenize the same runbook text again.
  const passageTerms = new Map<string, ReadonlySet<string>>();
  const termsOf = (doc: number, passage: number): ReadonlySet<string> => {
    const key = `${doc}:${passage}`;
    let terms = passageTerms.get(key);
    if (terms === undefined) {
      terms = new Set(tokenizeMixedText(data.passages[doc]?.[passage] ?? ''));
      passageTerms.set(key, terms);
    }
    return terms;
  };

  return {
    search({ query, enterpriseId, service, topK }) {
      const queryTerms = tokenizeMixedText(query);
      const queryService = service === undefined ? -1 : (serviceNumbers.get(service) ?? -1);
      const seen = new Set<string>();
      touched.length = 0;
      lastTerm.fill(-1);
      for (let position = 0; position < queryTerms.length; position += 1) {
        const term = queryTerms[position] ?? '';
        const termId = termIds.get(term);
        if (termId === undefined) continue;
        const firstOccurrence = !seen.has(term);
        seen.add(term);
        termTouched.length = 0;
        for (let field = 0; field < FIELD_COUNT; field += 1) {
          const start: number = termFieldStart[termId * FIELD_COUNT + field] ?? 0;
          const end: number = termFieldStart[termId * FIELD_COUNT + field + 1] ?? 0;
          if (start === end) continue;
          const matching = end - start;
          const inverseFrequency = Math.log(1 + (documentCount - matching + 0.5) / (matching + 0.5));
          const average = data.averageFieldLength[field] ?? 0;
          const fieldBoost = FIELD_BOOSTS[field] ?? 1;
          const boostedField = fieldBoost * SERVICE_BOOST;
          for (let at: number = start; at < end; at += 1) {
            const doc: number = postingDocs[at] ?? 0;
            const frequency = postingFrequencies[at] ?? 0;
            const length = fieldLengths[doc * FIELD_COUNT + field] ?? 0;
            const raw =
              inverseFrequency * (D + (frequency * (K + 1)) / (frequency + K * (1 - B + (B * length) / average)));
            if (lastTerm[doc] !== position) {
              if (lastTerm[doc] === -1) {
                touched.push(doc);
                totals[doc] = 0;
                distinctMatched[doc] = 0;
              }
              lastTerm[doc] = position;
              termTouched.push(doc);
              termScores[doc] = 0;
              if (firstOccurrence) distinctMatched[doc] = (distinctMatched[doc] ?? 0) + 1;
            }
            // NOTE: (field boost × service boost) × raw, MiniSearch's order of operations, for bit-equal scores.
            termScores[doc] =
              (termScores[doc] ?? 0) + (serviceOf[doc] === queryService ? boostedField : fieldBoost) * raw;
          }
        }
        for (const doc of termTouched) totals[doc] = (totals[doc] ?? 0) + (termScores[doc] ?? 0);
      }
      // The topK best runbooks this tenant may see, score descending; on a tie the first matched stays first, which
      // is the order a stable sort of all matches gives.
      const visible = enterpriseNumbers.get(enterpriseId) ?? -1;
      const best: { doc: number; score: number }[] = [];
      let threshold = -1;
      for (const doc of touched) {
        const owner = enterpriseOf[doc];
        if (owner !== 0 && owner !== visible) continue;
        const score = (totals[doc] ?? 0) * (distinctMatched[doc] ?? 1);
        if (best.length === topK && score <= threshold) continue;
        let at = best.length;
        while (at > 0 && (best[at - 1]?.score ?? 0) < score) at -= 1;
        best.splice(at, 0, { doc, score });
        if (best.length > topK) best.pop();
        threshold = best.length === topK ? (best[topK - 1]?.score ?? 0) : -1;
      }
      const distinctTerms = new Set(queryTerms);
      return best.map(({ doc, score }) => {
        const runbook = data.runbooks[doc] as IndexedRunbook;
        return {
          doc_id: runbook.docId,
          title: runbook.title,
          snippet: bestPassage(data.passages[doc] ?? [], distinctTerms, (passage) => termsOf(doc, passage)),
          score: Math.round(score * 1_000) / 1_000,
          ...(runbook.service === '' ? {} : { service: runbook.service }),
        };
      });
    },
  };
}

function numberOf(numbers: Map<string, number>, value: string): number {
  let number = numbers.get(value);
  if (number === undefined) {
    number = numbers.size;
    numbers.set(value, number);
  }
  return number;
}

/**
 * The passage sharing the most distinct query terms (the first one on a tie), cut to 600 characters; `termsOf(i)` is
 * the distinct terms of passage `i`.
 */
function bestPassage(
  passages: readonly string[],
  queryTerms: ReadonlySet<string>,
  termsOf: (passage: number) => ReadonlySet<string>,
): string {
  let best = passages[0] ?? '';
  let bestScore = -1;
  for (const [index, passage] of passages.entries()) {
    let score = 0;
    for (const term of termsOf(index)) if (queryTerms.has(term)) score += 1;
    if (score > bestScore) {
      best = passage;
      bestScore = score;
    }
  }
  return best.slice(0, SNIPPET_CHARS);
}
