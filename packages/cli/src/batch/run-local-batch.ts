/**
 * A batch of diagnoses on this machine, through the DiagnosisBatch state machine's own definition (the inline Map),
 * run by the local interpreter against the real Diagnose handler: the same payloads, the same retriers (a busy
 * enterprise is waited out with the definition's own backoff), the same per-enterprise lease slots in the table.
 * `--concurrency` stands in for the Map's MaxConcurrency.
 */

import { type LocalWorkflowOptions, runLocalWorkflow } from '@diagnosis/devkit';
import { buildDiagnosisBatchDefinition } from '@diagnosis/functions/workflows';

export interface LocalBatchOptions {
  requests: unknown[];
  concurrency: number;
  executionName: string;
  /** One Diagnose invocation (the handler with a Lambda context). */
  invoke: (payload: unknown) => Promise<unknown>;
  sleep?: LocalWorkflowOptions['sleep'];
}

export interface LocalBatchReport {
  total: number;
  /** Items by outcome: the released status, or the Fail state's error. */
  outcomes: Record<string, number>;
  wallMs: number;
  /** Items finished per minute of wall time. */
  perMinute: number;
  /** Per item, from its first Diagnose invocation to its last answer (lease waits included). */
  p50Ms: number;
  p95Ms: number;
  /** Invocations refused with DiagnosisTenantBusyError (the enterprise was at its cap), each then waited out. */
  busyRefusals: number;
  results: unknown[];
}

const LOCAL_ARN = 'arn:aws:lambda:local:000000000000:function:Diagnose';

/** The nearest-rank percentile of a list of durations. */
function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
}

export async function runLocalBatch(options: LocalBatchOptions): Promise<LocalBatchReport> {
  const definition = buildDiagnosisBatchDefinition({
    diagnoseFunctionArn: LOCAL_ARN,
    maxConcurrency: options.concurrency,
  });
  const spans = new Map<string, { start: number; end: number }>();
  let busyRefusals = 0;
  const started = performance.now();
  const execution = await runLocalWorkflow(
    definition,
    { requests: options.requests },
    {
      executionName: options.executionName,
      ...(options.sleep === undefined ? {} : { sleep: options.sleep }),
      invoke: async (_arn, payload) => {
        const runId = String((payload as { runId?: unknown }).runId);
        const span = spans.get(runId) ?? { start: performance.now(), end: 0 };
        spans.set(runId, span);
        try {
          return await options.invoke(payload);
        } catch (error) {
          if ((error as Error).name === 'DiagnosisTenantBusyError') busyRefusals += 1;
          throw error;
        } finally {
          span.end = performance.now();
        }
      },
    },
  );
  const wallMs = performance.now() - started;
  if (execution.status !== 'SUCCEEDED') throw new Error(`the batch failed: ${execution.error}`);
  const results = (execution.output as { results: unknown[] }).results;
  const outcomes: Record<string, number> = {};
  for (const result of results) {
    const outcome = String(
      (result as { status?: unknown; Error?: unknown }).status ?? (result as { Error?: unknown }).Error,
    );
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  const durations = [...spans.values()].map((span) => span.end - span.start);
  return {
    total: results.length,
    outcomes,
    wallMs,
    perMinute: results.length / (wallMs / 60_000),
    p50Ms: percentile(durations, 0.5),
    p95Ms: percentile(durations, 0.95),
    busyRefusals,
    results,
  };
}
