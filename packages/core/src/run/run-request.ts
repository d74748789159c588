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
}

/** The identity of a run within its request. */
export type RunIdentity = Pick<DiagnosisRunRequest, 'runId' | 'sessionId' | 'enterpriseId'>;
