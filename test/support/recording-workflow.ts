import type { DiagnosisRunRequest, DiagnosisWorkflow } from '@diagnosis/core';

/** A workflow that only records what it was asked to start (the run itself is not executed). */
export function recordingWorkflow(options: { fail?: () => Error | undefined } = {}): {
  workflow: DiagnosisWorkflow;
  started: string[];
  payloads: DiagnosisRunRequest[];
} {
  const started: string[] = [];
  const payloads: DiagnosisRunRequest[] = [];
  const workflow: DiagnosisWorkflow = {
    executionArnOf: (runId) => `arn:aws:states:local:000000000000:execution:DiagnosisWorkflow:${runId}`,
    async start(request) {
      const failure = options.fail?.();
      if (failure !== undefined) throw failure;
      started.push(request.runId);
      payloads.push(request);
    },
    stop: async () => undefined,
  };
  return { workflow, started, payloads };
}
