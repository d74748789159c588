import { createHash } from 'node:crypto';
import { endianness } from 'node:os';
import type { KnowledgeIndexData } from './knowledge-index.ts';

/**
 * The knowledge index file (`npm run knowledge:index`, written at deploy time): a 64-byte header, the runbooks,
 * passages and terms as UTF-8 JSON, then the postings as little-endian uint32 arrays that are used in place.
 *
 * | bytes | content                                                                                      |
 * | ----- | -------------------------------------------------------------------------------------------- |
 * | 0–7   | magic `DXKNOWIX`                                                                              |
 * | 8–27  | uint32: format version (2), runbooks, terms, postings, JSON bytes                             |
 * | 28–31 | zero                                                                                          |
 * | 32–63 | SHA-256 of every byte after the header                                                        |
 * | 64…   | JSON, zero-padded to a multiple of 4; termFieldStart, postingDocs, postingFrequencies, fieldLengths |
 *
 * A cold start checks the header, the size the counts imply and the checksum (cheap: no parsing); the JSON is parsed
 * and the arrays mapped on the first lookup.
 */
const MAGIC = 'DXKNOWIX';
const VERSION = 2;
const HEADER_BYTES = 64;
const FIELD_COUNT = 3;
/** Far beyond what a local index should hold (see README: switch to Bedrock Knowledge Bases long before). */
const MAX_COUNT = 0x3fff_ffff;

/** A file whose header, size and checksum were verified; `decodeKnowledgeIndexFile` turns it into an index. */
export interface KnowledgeIndexFile {
  readonly bytes: Uint8Array;
  readonly runbookCount: number;
  readonly termCount: number;
  readonly postingCount: number;
  readonly jsonBytes: number;
}

const align4 = (value: number) => (value + 3) & ~3;
const arrayWords = (file: Pick<KnowledgeIndexFile, 'runbookCount' | 'termCount' | 'postingCount'>) =>
  file.termCount * FIELD_COUNT + 1 + 2 * file.postingCount + file.runbookCount * FIELD_COUNT;

export function encodeKnowledgeIndexFile(data: KnowledgeIndexData): Uint8Array {
  const json = new TextEncoder().encode(
    JSON.stringify({
      averageFieldLength: data.averageFieldLength,
      runbooks: data.runbooks.map((runbook) => [runbook.docId, runbook.title, runbook.service, runbook.enterprise]),
      passages: data.passages,
      terms: data.terms,
    }),
  );
  const counts = {
    runbookCount: data.runbooks.length,
    termCount: data.terms.length,
    postingCount: data.postingDocs.length,
  };
  const bytes = new Uint8Array(HEADER_BYTES + align4(json.length) + 4 * arrayWords(counts));
  const header = new DataView(bytes.buffer);
  bytes.set(new TextEncoder().encode(MAGIC), 0);
  [VERSION, counts.runbookCount, counts.termCount, counts.postingCount, json.length].forEach((value, at) => {
    header.setUint32(8 + at * 4, value, true);
  });
  bytes.set(json, HEADER_BYTES);
  let offset = HEADER_BYTES + align4(json.length);
  for (const array of [data.termFieldStart, data.postingDocs, data.postingFrequencies, data.fieldLengths]) {
    for (const value of array) {
      header.setUint32(offset, value, true);
      offset += 4;
    }
  }
  bytes.set(createHash('sha256').update(bytes.subarray(HEADER_BYTES)).digest(), 32);
  return bytes;
}

/**
 * The cold-start check of an index file: magic, version, counts, exact size and SHA-256. A string result is the
 * fault, worded for an operator (it names no path and quotes nothing of the file).
 */
export function parseKnowledgeIndexFile(bytes: Uint8Array): KnowledgeIndexFile | string {
  if (bytes.length < HEADER_BYTES || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) {
    return 'the knowledge index file is not a diagnosis knowledge index';
  }
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const [version, runbookCount, termCount, postingCount, jsonBytes, zero] = [8, 12, 16, 20, 24, 28].map((at) =>
    header.getUint32(at, true),
  ) as [number, number, number, number, number, number];
  if (version !== VERSION) return `the knowledge index file has format version ${version}, expected ${VERSION}`;
  if (zero !== 0 || [runbookCount, termCount, postingCount, jsonBytes].some((count) => count > MAX_COUNT)) {
    return 'the knowledge index file has an invalid header';
  }
  const file = { bytes, runbookCount, termCount, postingCount, jsonBytes };
  if (bytes.length !== HEADER_BYTES + align4(jsonBytes) + 4 * arrayWords(file)) {
    return 'the knowledge index file is truncated or has trailing bytes';
  }
  const digest = createHash('sha256').update(bytes.subarray(HEADER_BYTES)).digest();
  if (!digest.equals(bytes.subarray(32, HEADER_BYTES))) return 'the knowledge index file fails its checksum';
  return file;
}

interface IndexJson {
  averageFieldLength: number[];
  runbooks: [string, string, string, string][];
  passages: string[][];
  terms: string[];
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * The JSON part's shape, checked by hand: valibot costs about 1 ms per 3,000 strings here, on the first lookup's path.
 */
function isIndexJson(value: unknown, counts: { runbookCount: number; termCount: number }): value is IndexJson {
  if (typeof value !== 'object' || value === null) return false;
  const { averageFieldLength, runbooks, passages, terms, ...rest } = value as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    Array.isArray(averageFieldLength) &&
    averageFieldLength.length === FIELD_COUNT &&
    averageFieldLength.every((average) => typeof average === 'number' && average >= 0) &&
    Array.isArray(runbooks) &&
    runbooks.length === counts.runbookCount &&
    runbooks.every((runbook) => isStringArray(runbook) && runbook.length === 4) &&
    Array.isArray(passages) &&
    passages.length === counts.runbookCount &&
    passages.every(isStringArray) &&
    isStringArray(terms) &&
    terms.length === counts.termCount
  );
}

/**
 * The first lookup's work: parses the JSON part and maps the postings without copying them (copies only when the
 * buffer is not 4-byte aligned). A string result is the fault: a file that passed its checksum but does not hold a
 * consistent index (written by a faulty tool).
 */
export function decodeKnowledgeIndexFile(file: KnowledgeIndexFile): KnowledgeIndexData | string {
  if (endianness() !== 'LE') return 'the knowledge index file needs a little-endian machine';
  const { bytes, runbookCount, termCount, postingCount, jsonBytes } = file;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes.subarray(HEADER_BYTES, HEADER_BYTES + jsonBytes)));
  } catch {
    return 'the knowledge index file holds no valid JSON';
  }
  if (!isIndexJson(json, file)) {
    return 'the knowledge index file’s runbooks, passages or terms do not match its header';
  }
  const start = bytes.byteOffset + HEADER_BYTES + align4(jsonBytes);
  const words =
    start % 4 === 0
      ? new Uint32Array(bytes.buffer, start, arrayWords(file))
      : new Uint32Array(bytes.slice(HEADER_BYTES + align4(jsonBytes)).buffer);
  let offset = 0;
  const take = (length: number) => {
    const array = words.subarray(offset, offset + length);
    offset += length;
    return array;
  };
  const data: KnowledgeIndexData = {
    averageFieldLength: json.averageFieldLength,
    runbooks: json.runbooks.map(([docId, title, service, enterprise]) => ({
      docId,
      title,
      service,
      enterprise,
    })),
    passages: json.passages,
    terms: json.terms,
    termFieldStart: take(termCount * FIELD_COUNT + 1),
    postingDocs: take(postingCount),
    postingFrequencies: take(postingCount),
    fieldLengths: take(runbookCount * FIELD_COUNT),
  };
  return postingsAreConsistent(data) ? data : 'the knowledge index file’s postings are inconsistent';
}

/** Every posting list in bounds, runbooks ascending within a list (the order ties are broken by). */
function postingsAreConsistent(data: KnowledgeIndexData): boolean {
  const { termFieldStart, postingDocs } = data;
  if (termFieldStart[0] !== 0 || termFieldStart[termFieldStart.length - 1] !== postingDocs.length) return false;
  for (let key = 0; key + 1 < termFieldStart.length; key += 1) {
    const start = termFieldStart[key] ?? 0;
    const end = termFieldStart[key + 1] ?? 0;
    if (end < start) return false;
    let previous = -1;
    for (let at = start; at < end; at += 1) {
      const doc = postingDocs[at] ?? 0;
      if (doc <= previous || doc >= data.runbooks.length) return false;
      previous = doc;
    }
  }
  return true;
}
