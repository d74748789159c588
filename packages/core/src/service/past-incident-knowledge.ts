import { truncateChars } from '../run/utf8.ts';
import {
  PAST_INCIDENT_LIMITS,
  type PastIncident,
  type PastIncidentStore,
  pastIncidentCitationId,
  type UnreadablePastIncident,
} from '../store/past-incident-store.ts';
import { tokenizeMixedText } from '../tools/adapters/cjk-tokenizer.ts';
import type {
  AdapterResult,
  EvidenceAdapter,
  KnowledgeData,
  KnowledgeHit,
  KnowledgeInput,
  ToolCallRequest,
} from '../tools/evidence-adapter.ts';

/** The bounds of one retrieval of past incidents, per `lookup_knowledge` call. */
export interface PastIncidentRetrieval {
  /** The newest past incidents read (one Query page; at most `PAST_INCIDENT_LIMITS.recentWindow`). */
  window: number;
  /** The longest the read may take; past it the lookup answers with the runbooks alone. */
  timeoutMs: number;
}

export const DEFAULT_PAST_INCIDENT_RETRIEVAL: PastIncidentRetrieval = Object.freeze({
  window: PAST_INCIDENT_LIMITS.recentWindow,
  timeoutMs: 1_000,
});

const SNIPPET_CHARS = 600;
const DEFAULT_TOP_K = 3;

export interface PastIncidentKnowledgeOptions {
  runbooks: EvidenceAdapter<KnowledgeInput, KnowledgeData>;
  incidents: Pick<PastIncidentStore, 'recent'>;
  retrieval?: Partial<PastIncidentRetrieval>;
  now?: () => number;
  /** Told when the read failed or timed out (the lookup then answers with the runbooks alone): class or code only. */
  onRetrievalFailure?: (cause: 'TIMEOUT' | 'UNAVAILABLE', errorClass: string) => void;
  /** Told of a memory the read skipped as unreadable (the others are used): its error's class and code only. */
  onUnreadableItem?: UnreadablePastIncident;
}

/**
 * `lookup_knowledge` with the enterprise's past incidents ranked beside the runbooks. The run's enterprise (from the
 * run, never the model) names the only partition read: its newest `window` memories, one bounded read, at most
 * `timeoutMs` (a failure or a timeout leaves the runbooks' answer unchanged). A memory is a candidate when it shares
 * a term with the query (the runbooks' tokenizer) and, when the call names a service, was tagged with that service
 * (or with none); candidates are scored like the runbooks (term weights over the window) and both lists are
 * normalised to their own best hit, then merged, runbooks first on a tie, to the call's `top_k`. Each memory is a hit
 * marked `source: "past_incident"` with its run id, when it was and how it was rated. NOTE: without a matching memory
 * the runbooks' answer is returned as it came, so a deployment without memories sees no change.
 */
export function createPastIncidentKnowledge(
  options: PastIncidentKnowledgeOptions,
): EvidenceAdapter<KnowledgeInput, KnowledgeData> {
  const retrieval = { ...DEFAULT_PAST_INCIDENT_RETRIEVAL, ...options.retrieval };
  const now = options.now ?? Date.now;

  async function recall(call: ToolCallRequest<KnowledgeInput>): Promise<PastIncident[]> {
    const timeout = AbortSignal.timeout(retrieval.timeoutMs);
    const signal = AbortSignal.any([call.signal, timeout]);
    try {
      return await options.incidents.recent(call.enterpriseId, {
        limit: retrieval.window,
        now: now(),
        signal,
        ...(options.onUnreadableItem === undefined ? {} : { onUnreadable: options.onUnreadableItem }),
      });
    } catch (error) {
      const errorClass = error instanceof Error ? error.name : typeof error;
      options.onRetrievalFailure?.(timeout.aborted ? 'TIMEOUT' : 'UNAVAILABLE', errorClass);
      return [];
    }
  }

  return {
    async execute(call) {
      const [runbooks, incidents] = await Promise.all([options.runbooks.execute(call), recall(call)]);
      if (runbooks.status === 'ERROR') return runbooks;
      const topK = Math.min(5, Math.max(1, call.input.top_k ?? DEFAULT_TOP_K));
      const remembered = rankPastIncidents(incidents, call.input).slice(0, topK);
      if (remembered.length === 0) return runbooks;
      const documents = runbooks.status === 'OK' ? runbooks.data.hits : [];
      return {
        status: 'OK',
        data: { hits: mergeHits(documents, remembered, topK) },
      } satisfies AdapterResult<KnowledgeData>;
    },
  };
}

/** The candidates among `incidents` for `input`, best first, each with its score (> 0). */
export function rankPastIncidents(
  incidents: readonly PastIncident[],
  input: KnowledgeInput,
): { incident: PastIncident; score: number }[] {
  const service = input.service?.toLowerCase();
  const eligible = incidents.filter(
    (incident) => service === undefined || incident.services.length === 0 || incident.services.includes(service),
  );
  const queryTerms = new Set(tokenizeMixedText(input.query));
  if (queryTerms.size === 0 || eligible.length === 0) return [];
  const termsOf = eligible.map(
    (incident) =>
      new Set(tokenizeMixedText([incident.conclusion, incident.rootCause ?? '', ...incident.services].join('\n'))),
  );
  const weights = new Map<string, number>();
  for (const term of queryTerms) {
    const frequency = termsOf.filter((terms) => terms.has(term)).length;
    if (frequency > 0) {
      weights.set(term, Math.log(1 + (eligible.length - frequency + 0.5) / (frequency + 0.5)));
    }
  }
  return eligible
    .map((incident, index) => {
      let score = 0;
      for (const [term, weight] of weights) if (termsOf[index]?.has(term)) score += weight;
      if (service !== undefined && incident.services.includes(service)) score *= 2;
      return { incident, score };
    })
    .filter((candidate) => candidate.score > 0)
    .sort((a, b) => b.score - a.score || (a.incident.occurredAt < b.incident.occurredAt ? 1 : -1));
}

/** A past incident as a knowledge hit: when, what was concluded, how it was rated, marked as such. */
export function pastIncidentHit(incident: PastIncident, score: number): KnowledgeHit {
  const day = incident.occurredAt.slice(0, 10);
  const cause = incident.rootCause === null ? '' : `；响应者给出的原因：${incident.rootCause}`;
  return {
    doc_id: pastIncidentCitationId(incident.runId),
    title: `历史事件（${day}，评为 ${incident.rating}）——线索，不是本次的证据`,
    snippet: truncateChars(`${day} 的诊断结论：${incident.conclusion}${cause}`, SNIPPET_CHARS),
    score,
    ...(incident.services[0] === undefined ? {} : { service: incident.services[0] }),
    source: 'past_incident',
    run_id: incident.runId,
    occurred_at: incident.occurredAt,
    rating: incident.rating,
  };
}

/**
 * Runbook hits and past incidents in one list of at most `topK`: each list's scores divided by its own best (so the
 * best of each is 1), merged by that, a runbook first on a tie.
 */
function mergeHits(
  documents: readonly KnowledgeHit[],
  remembered: readonly { incident: PastIncident; score: number }[],
  topK: number,
): KnowledgeHit[] {
  const normalised = (score: number, best: number) => Math.round((best > 0 ? score / best : 0) * 10_000) / 10_000;
  const bestDocument = Math.max(0, ...documents.map((hit) => hit.score));
  const bestMemory = Math.max(0, ...remembered.map((candidate) => candidate.score));
  const ranked = [
    ...documents.map((hit, order) => ({ hit: { ...hit, score: normalised(hit.score, bestDocument) }, kind: 0, order })),
    ...remembered.map(({ incident, score }, order) => ({
      hit: pastIncidentHit(incident, normalised(score, bestMemory)),
      kind: 1,
      order,
    })),
  ];
  ranked.sort((a, b) => b.hit.score - a.hit.score || a.kind - b.kind || a.order - b.order);
  return ranked.slice(0, topK).map((entry) => entry.hit);
}
