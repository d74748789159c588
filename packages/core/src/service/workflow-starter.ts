import type { DiagnosisRunRequest } from '../run/run-request.ts';

/**
 * Port: what runs a queued diagnosis. In AWS, the DiagnosisWorkflow state machine (an execution named by the runId,
 * so starting it twice is harmless); locally and in tests, an in-process runner. `stop` asks the engine to stop the
 * run's execution; the run itself ends CANCELLED because its invocation watches the run's cancel flag.
 */
export interface WorkflowStarter {
  start(request: DiagnosisRunRequest): Promise<void>;
  stop(runId: string): Promise<void>;
}
