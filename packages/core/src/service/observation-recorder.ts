import type { ChangeCheckRow } from '../release/change-after-symptom.ts';
import type { SeenBefore } from '../release/diagnosis-result.ts';
import type { PastIncidentCitations } from '../release/evidence-guard.ts';
import type { AuditHook } from '../store/audit-hook.ts';
import { pastIncidentCitationId } from '../store/past-incident-store.ts';
import type { Observation } from '../tools/observation.ts';

/** The most services a run records (`RunOutcome.services`), and their length. */
const MAX_SERVICES = 5;
const MAX_SERVICE_CHARS = 100;

/**
 * An audit hook in front of the run's store that also keeps, per tool call id, the observation the agent saw for
 * each executed READY check: the SemanticGuard's evidence comes from exactly the events the harness audited, never
 * from a second read of any source. Everything is passed on to the store unchanged. NOTE: the first record of an id
 * is the canonical one; a rejected reuse of the id never replaces it. From the same events it tells which checks
 * returned past incidents (the EvidenceGuard's input) and which past runs they were ("seen before"), and the services
 * the run's logs checks asked (what a past incident of this run will be tagged with). A past incident is citable by its
 * own id (`past-incident:<runId>`) and a lookup's id stands for its runbook hits: `citableObservations` is what each
 * citable id shows the judge.
 */
export function createObservationRecorder(audit: AuditHook) {
  const observations = new Map<string, Observation>();
  const services: string[] = [];
  const hook: AuditHook = {
    onModelStep: (event) => audit.onModelStep(event),
    onPseudonyms: async (event) => {
      await audit.onPseudonyms?.(event);
    },
    async onToolInvocation(event) {
      await audit.onToolInvocation(event);
      if (event.disposition === 'EXECUTED' && event.status === 'READY' && !observations.has(event.toolCallId)) {
        observations.set(event.toolCallId, event.observation);
        const service = event.toolName === 'query_logs' ? serviceOf(event.input) : null;
        if (service !== null && !services.includes(service) && services.length < MAX_SERVICES) services.push(service);
      }
    },
  };
  return {
    hook,
    /** The services the executed logs checks asked, lower-cased, first asked first (at most five). */
    services: (): string[] => [...services],
    /** Each past incident's own id with the lookup that first returned it, and the lookups that returned only those. */
    pastIncidentCitations: (): PastIncidentCitations => {
      const incidents = new Map<string, string>();
      const memoryOnlyLookups = new Set<string>();
      for (const [toolCallId, observation] of observations) {
        const past = pastIncidentHits(observation);
        for (const hit of past) if (!incidents.has(hit.id)) incidents.set(hit.id, toolCallId);
        if (past.length > 0 && past.length === hitsOf(observation).length) memoryOnlyLookups.add(toolCallId);
      }
      return { incidents, memoryOnlyLookups };
    },
    /**
     * The observation behind every citable id: a lookup that returned runbooks beside past incidents shows its runbook
     * hits only, a past incident its own hit only (in the observation of the lookup that first returned it); every
     * other check, and a lookup that returned past incidents alone, as the agent saw it.
     */
    citableObservations: (): ReadonlyMap<string, Observation> => {
      const citable = new Map<string, Observation>();
      for (const [toolCallId, observation] of observations) {
        const hits = hitsOf(observation);
        const runbooks = hits.filter((hit) => hit.source !== 'past_incident');
        citable.set(
          toolCallId,
          runbooks.length === hits.length || runbooks.length === 0 ? observation : withHits(observation, runbooks),
        );
        for (const hit of hits) {
          const past = pastIncidentHit(hit);
          if (past !== null && !citable.has(past.id) && !observations.has(past.id)) {
            citable.set(past.id, withHits(observation, [hit]));
          }
        }
      }
      return citable;
    },
    /** The change-stream checks and the changes each returned (the EvidenceGuard's input), as the model saw them. */
    changeChecks: (): ReadonlyMap<string, readonly ChangeCheckRow[]> =>
      new Map(
        [...observations]
          .map(([id, observation]) => [id, changeRows(observation)] as const)
          .filter(([, rows]) => rows.length > 0),
      ),
    /** The past runs the lookups returned, first seen first, each with the lookups that returned it. */
    seenBefore: (): SeenBefore[] => {
      const byRun = new Map<string, SeenBefore>();
      for (const [toolCallId, observation] of observations) {
        for (const hit of pastIncidentHits(observation)) {
          const seen = byRun.get(hit.run_id);
          if (seen === undefined) {
            byRun.set(hit.run_id, {
              run_id: hit.run_id,
              occurred_at: hit.occurred_at,
              rating: hit.rating,
              tool_call_ids: [toolCallId],
            });
          } else if (!seen.tool_call_ids.includes(toolCallId)) seen.tool_call_ids.push(toolCallId);
        }
      }
      return [...byRun.values()];
    },
  };
}

type KnowledgeHit = NonNullable<ReturnType<typeof hitsOf>[number]>;

/** The knowledge hits of an observation (as the projection checked them), none for any other. */
function hitsOf(observation: Observation) {
  const data = observation.data;
  return data === undefined || !('hits' in data) ? [] : data.hits;
}

/** The observation with only `hits` among its knowledge hits. */
function withHits(observation: Observation, hits: readonly KnowledgeHit[]): Observation {
  return { ...observation, data: { hits: [...hits] } };
}

/**
 * A hit's past incident: its marks and its own citable id, `past-incident:<runId>` (from its checked run id, never
 * from the `doc_id` a source wrote); null for a runbook hit.
 */
function pastIncidentHit(hit: KnowledgeHit) {
  return hit.source === 'past_incident' &&
    hit.run_id !== undefined &&
    hit.occurred_at !== undefined &&
    hit.rating !== undefined
    ? { id: pastIncidentCitationId(hit.run_id), run_id: hit.run_id, occurred_at: hit.occurred_at, rating: hit.rating }
    : null;
}

/** The past-incident hits of an observation (as the projection checked them), none for any other. */
function pastIncidentHits(observation: Observation) {
  return hitsOf(observation).flatMap((hit) => pastIncidentHit(hit) ?? []);
}

/** The change-stream rows of an observation (as the projection checked them), none for any other. */
function changeRows(observation: Observation): ChangeCheckRow[] {
  const data = observation.data;
  if (data === undefined || !('lines' in data)) return [];
  return data.lines.flatMap((line) =>
    line.change === undefined
      ? []
      : [
          {
            changeId: line.change.change_id,
            at: line.timestamp,
            service: line.service,
            kind: line.change.kind,
            ref: line.change.ref,
            summary: line.message,
            url: line.change.url,
            placement: line.change.placement,
          },
        ],
  );
}

/** The service a logs call asked (its envelope's `input.service`), lower-cased and bounded; null when none. */
function serviceOf(envelope: unknown): string | null {
  if (typeof envelope !== 'object' || envelope === null || !('input' in envelope)) return null;
  const input = envelope.input;
  if (typeof input !== 'object' || input === null || !('service' in input)) return null;
  const service = input.service;
  if (typeof service !== 'string') return null;
  const trimmed = service.trim().toLowerCase().slice(0, MAX_SERVICE_CHARS);
  return trimmed.length === 0 ? null : trimmed;
}
