import { createHash } from 'node:crypto';
import type { IncidentEventKind, TriggerSource } from '../run/run-trigger.ts';

/** The incident a trigger event belongs to, named by code: its enterprise (from the mapping), source and key. */
export interface IncidentRef {
  enterpriseId: string;
  source: TriggerSource;
  incidentKey: string;
}

/** One incident as the table holds it: the run it points at now, and when it last heard of it. */
export interface StoredIncident extends IncidentRef {
  runId: string;
  sessionId: string;
  /** When the incident's current run was claimed (UTC ISO). */
  openedAt: string;
  /** The last event of the incident (the opening one, or the last attached), UTC ISO. */
  lastEventAt: string;
  /** Events attached to the current run so far (those beyond {@link MAX_STORED_INCIDENT_EVENTS} are only counted). */
  eventCount: number;
  /** Runs this incident has started (1 for the first, 2 after a re-fire, …). */
  runCount: number;
  /** When the sender said the incident resolved, UTC ISO; null while it fires (a later firing event clears it). */
  resolvedAt: string | null;
}

/** A later event of an incident, kept beside the run it attached to. */
export interface IncidentEventRecord {
  runId: string;
  /** 1, 2, … in the order the table counted them. */
  sequence: number;
  source: TriggerSource;
  /** What the event said: still firing, acknowledged, resolved, reopened… (items written before kinds: `FIRING`). */
  kind: IncidentEventKind;
  eventId: string;
  title: string;
  receivedAt: string;
}

/** The most attached events kept per run; later ones are counted on the incident, not stored. */
export const MAX_STORED_INCIDENT_EVENTS = 100;

/** What {@link IncidentStore.openIncident} answers: the claim is this caller's, or the incident existed already. */
type IncidentClaim = { opened: true } | { opened: false; incident: StoredIncident | null };

/**
 * Port: one run per incident, and each webhook event once. Every write is conditional, so concurrent trigger
 * invocations agree without a lock: `openIncident` succeeds for exactly one of them, `reopenIncident` only while the
 * incident still points at the run the caller saw, `attachEvent` only while it still points at `runId`.
 */
export interface IncidentStore {
  getIncident(ref: IncidentRef): Promise<StoredIncident | null>;
  /**
   * Claims a new incident for `runId`. Refused when the incident exists already: then it answers with the incident as
   * stored when the claim was refused (a strongly consistent read in the same request), or `null` when the store
   * could not say (the caller reads it).
   */
  openIncident(ref: IncidentRef, claim: { runId: string; sessionId: string; at: number }): Promise<IncidentClaim>;
  /**
   * Points the incident at a new run if it still is `seen` (same run, same last event); false otherwise. The incident
   * fires again: its resolved mark is cleared.
   */
  reopenIncident(seen: StoredIncident, claim: { runId: string; at: number }): Promise<boolean>;
  /**
   * Counts an event on the incident's run `runId` and keeps it (up to {@link MAX_STORED_INCIDENT_EVENTS}); returns its
   * sequence number, or null when the incident no longer points at `runId`. A `RESOLVED` event marks the incident
   * resolved (`resolvedAt`), a firing one clears that mark, an `ACKNOWLEDGED` one leaves it.
   */
  attachEvent(
    ref: IncidentRef,
    runId: string,
    event: Omit<IncidentEventRecord, 'runId' | 'sequence' | 'receivedAt'> & { at: number },
  ): Promise<number | null>;
  /**
   * Gives up the claim of a run that could not be started (only while the incident still points at `runId`): a first
   * claim is deleted; a re-fire's (`previous`: the incident as the re-fire saw it) puts the incident back as it was, so
   * it points at its last stored run again and the sender's retry is judged against that run (issue 32 item 6).
   */
  releaseIncident(ref: IncidentRef, runId: string, previous?: StoredIncident): Promise<void>;
  /** The events attached to a run, in order (at most `limit`, default {@link MAX_STORED_INCIDENT_EVENTS}). */
  listIncidentEvents(runId: string, limit?: number): Promise<IncidentEventRecord[]>;
  /**
   * Records a webhook's event id once (replay protection); false when it was seen already and its record has not
   * expired. The record expires at `expiresAt` (epoch ms), after the sender's own staleness window. NOTE: the expiry
   * is part of the condition: DynamoDB deletes expired items only eventually.
   */
  claimWebhookEvent(source: TriggerSource, eventId: string, claim: { at: number; expiresAt: number }): Promise<boolean>;
  /** Forgets a claimed webhook event whose handling failed, so the sender's retry is not taken for a replay. */
  releaseWebhookEvent(source: TriggerSource, eventId: string): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The incident's key. NOTE: the incident key is the sender's text (an alarm ARN, a group key): only its SHA-256 goes
 * into the key, so no sender-chosen character ever reaches a DynamoDB key; the enterprise comes from the mapping.
 */
export const incidentKey = (ref: IncidentRef) => ({
  pk: `INCIDENT#${ref.enterpriseId}#${ref.source}#${digest(ref.incidentKey)}`,
  sk: 'INCIDENT',
});

/**
 * The partition of a run's attached incident events. NOTE: `RUN#<runId>#EVENTS` (a run id never holds `#`) matches
 * the read functions' `dynamodb:LeadingKeys` grant `RUN#*`, and is not the run's own partition, so the run's audit
 * listing never meets these items.
 */
export const incidentEventsPartitionKey = (runId: string) => `RUN#${runId}#EVENTS`;
export const incidentEventSortKey = (sequence: number) => `EVENT#${String(sequence).padStart(6, '0')}`;

export const webhookEventKey = (source: TriggerSource, eventId: string) => ({
  pk: `WEBHOOK#${source}#${digest(eventId)}`,
  sk: 'WEBHOOK',
});

/** The session of an incident's runs: a re-fire continues it, so the previous diagnosis is its previous turn. */
export function incidentSessionId(ref: IncidentRef): string {
  return `incident-${ref.source}-${digest(`${ref.enterpriseId}\n${ref.source}\n${ref.incidentKey}`).slice(0, 32)}`;
}
