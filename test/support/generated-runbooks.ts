import type { KnowledgeDocument } from '@diagnosis/core/adapters';
import { seededRandom } from '@diagnosis/eval/generate-logs';

/**
 * Synthetic runbooks with a realistic vocabulary, generated deterministically from a seed: every Han character and
 * ASCII word of the example runbooks, ranked by how often they occur there and drawn with Zipf weights (1 / rank);
 * each body as long as one of the example runbooks' bodies (chosen at random), cut into paragraphs with headings
 * and Chinese punctuation. A tenth of the documents belong to E1001, a tenth to E2002. Queries are drawn from the
 * same distribution. Used by the knowledge bench (1,000 and 10,000 documents) and the ranking tests.
 */
export interface GeneratedRunbooks {
  documents: KnowledgeDocument[];
  queries: string[];
}

const UNIT = /\p{Script=Han}|[[\p{L}\p{N}_]--\p{Script=Han}]+/gv;
const PUNCTUATION = ['，', '，', '，', '。', '、', '：'];

/** The units (Han characters, ASCII words) of the sample runbooks, most frequent first, with Zipf weights. */
function zipfVocabulary(samples: readonly KnowledgeDocument[]) {
  const counts = new Map<string, number>();
  for (const sample of samples) {
    for (const [unit] of `${sample.title}\n${sample.body}`.matchAll(UNIT)) {
      counts.set(unit, (counts.get(unit) ?? 0) + 1);
    }
  }
  const units = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([unit]) => unit);
  const cumulative: number[] = [];
  let total = 0;
  for (let rank = 1; rank <= units.length; rank += 1) {
    total += 1 / rank;
    cumulative.push(total);
  }
  return { units, cumulative, total };
}

export function generateRunbooks(
  samples: readonly KnowledgeDocument[],
  options: { count: number; queries?: number; seed?: number },
): GeneratedRunbooks {
  const random = seededRandom(options.seed ?? 14);
  const { units, cumulative, total } = zipfVocabulary(samples);
  const draw = () => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] ?? 0) < target) low = middle + 1;
      else high = middle;
    }
    return units[low] ?? '';
  };
  const isAscii = (unit: string) => unit.charCodeAt(0) < 0x80;
  /** About `length` characters of text: runs of 4–20 units between punctuation, ASCII words spaced. */
  const phrase = (length: number) => {
    let text = '';
    let run = 0;
    let runLength = 4 + Math.floor(random() * 17);
    while (text.length < length) {
      const unit = draw();
      text += isAscii(unit) ? ` ${unit} ` : unit;
      run += 1;
      if (run >= runLength) {
        text += PUNCTUATION[Math.floor(random() * PUNCTUATION.length)] ?? '，';
        run = 0;
        runLength = 4 + Math.floor(random() * 17);
      }
    }
    return text;
  };
  const bodyLengths = samples.map((sample) => sample.body.length);
  const services = [...new Set(samples.flatMap((sample) => (sample.service === undefined ? [] : [sample.service])))];
  for (let index = 0; services.length < 12; index += 1) services.push(`service-${index}`);

  const documents = Array.from({ length: options.count }, (_, index): KnowledgeDocument => {
    const bodyLength = bodyLengths[Math.floor(random() * bodyLengths.length)] ?? 600;
    const paragraphs: string[] = [];
    let written = 0;
    while (written < bodyLength) {
      if (random() < 0.3) paragraphs.push(`# ${phrase(4 + Math.floor(random() * 6))}`);
      const paragraph = phrase(Math.min(bodyLength - written, 60 + Math.floor(random() * 200)));
      paragraphs.push(paragraph);
      written += paragraph.length;
    }
    const tenant = random();
    return {
      docId: `generated-${index}`,
      title: `${phrase(8 + Math.floor(random() * 8))}手册`,
      service: services[Math.floor(random() * services.length)] ?? 'service-0',
      tags: Array.from({ length: 2 + Math.floor(random() * 3) }, draw),
      body: paragraphs.join('\n\n'),
      ...(tenant < 0.1 ? { enterprise: 'E1001' } : tenant < 0.2 ? { enterprise: 'E2002' } : {}),
    };
  });
  const queries = Array.from({ length: options.queries ?? 200 }, () => phrase(6 + Math.floor(random() * 12)));
  return { documents, queries };
}
