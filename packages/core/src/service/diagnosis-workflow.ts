import type { DiagnosisRunRequest } from '../run/run-request.ts';

/**
 * Port: what runs a queued diagnosis. In AWS, the DiagnosisWorkflow state machine (an execution named by the runId,
 * so starting it twice is harmless); locally and in tests, an in-process runner. `stop` asks the engine to stop the
 * run's execution; the run itself ends CANCELLED because its invocation watches the run's cancel flag.
 */
export interface DiagnosisWorkflow {
  /**
   * The execution a start of this run creates (its ARN; deterministic, the execution is named by the runId): recorded
   * on the QUEUED run before the start, so that only that execution may take the run and only its status-change
   * events may close or cancel it.
   */
  executionArnOf(runId: string): string;
  start(request: DiagnosisRunRequest): Promise<void>;
  stop(runId: string): Promise<void>;
}
