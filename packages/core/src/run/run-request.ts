import type { IncidentWindow } from './incident-window.ts';

/**
 * One request to diagnose, as every layer sees it: the handler parses it from an event, the service runs it, the
 * store keeps it (a replay of the runId must carry exactly the same one), and the RunContext takes its identity.
 */
export interface DiagnosisRunRequest {
  runId: string;
  sessionId: string;
  enterpriseId: string;
  query: string;
  continueSession: boolean;
  /**
   * The incident window the run's evidence must overlap (a triggered run's, or a caller's on `POST /diagnoses`);
   * absent: no window, the run behaves as it always did. NOTE: the Diagnose function takes it from the stored run,
   * never from the workflow's payload.
   */
  window?: IncidentWindow;
}

/** The identity of a run within its request. */
export type RunIdentity = Pick<DiagnosisRunRequest, 'runId' | 'sessionId' | 'enterpriseId'>;
