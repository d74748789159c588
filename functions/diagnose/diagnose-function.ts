import type { AuditWriter, EvidenceAdapters, RecordedReplay, RunStore } from '@diagnosis/core';
import type { DiagnosisSettings } from '@diagnosis/core/config';
import { createEvidenceAdapters } from '@diagnosis/core/evidence';
import { createDynamoClient } from '@diagnosis/core/store';
import type { Observability } from '../lambda/observability.ts';
import { buildDiagnosisDependencies } from './dependencies.ts';
import { createDiagnoseHandler } from './diagnose-handler.ts';
import { buildTenantLeases } from './tenant-leases.ts';

export interface DiagnoseFunctionOptions extends Observability {
  /**
   * Wraps each invocation's store (the command line tees the audit events into its live view); the store itself is
   * unchanged. Absent in Lambda.
   */
  wrapStore?: <S extends RunStore & AuditWriter>(store: S) => S;
  /** Adapters the caller built from the same settings and closes itself (the eval runner's MySQL pool). */
  evidence?: EvidenceAdapters;
  /** The run's clock (the eval runner starts a scenario's run at the scenario's own instant). Absent: real time. */
  now?: () => number;
  /**
   * The eval's replay of a captured scenario: the recording's pseudonyms pass to its recorded adapters verbatim
   * (see `DiagnosisServiceDeps.replay`). NOTE: only a caller that composes the function in its own process sets it
   * (the eval's `runScenario`, with the recorded adapters as `evidence`); the Lambda's entry passes no option, and no
   * setting or event field reaches it. Absent: masking as deployed.
   */
  recordedReplay?: RecordedReplay;
}

/**
 * The Diagnose function from its settings, the one composition root of the Lambda and the command line: settings →
 * clients (one DynamoDB client, one pool, for the audit store and the lease slots: the same table) → dependencies →
 * the middy chain. The Lambda calls it once per cold start with the settings of its environment; the command line
 * with the settings it built as an object (embedded local defaults, the user's environment and flags).
 */
export async function composeDiagnoseFunction(settings: DiagnosisSettings, options: DiagnoseFunctionOptions) {
  const dynamo = createDynamoClient(settings, process.env);
  // NOTE: the whole adapters object is kept, not only its `.evidence`: a caller outside Lambda (the command line)
  // must close the MySQL pool, or its process never exits (issue 32 item 12). A caller's own adapters it closes itself.
  const adapters =
    options.evidence === undefined
      ? await createEvidenceAdapters(settings)
      : { evidence: options.evidence, close: async () => undefined };
  const built = await buildDiagnosisDependencies(settings, dynamo, adapters.evidence, {
    onRetrievalFailure: (cause, errorClass) =>
      options.logger.warn('past incidents unavailable: the lookup answered with the runbooks alone', {
        cause,
        errorClass,
      }),
    onUnreadableItem: (errorClass, code) =>
      options.logger.warn('past incident unreadable: skipped, the enterprise’s other memories used', {
        errorClass,
        code,
      }),
  });
  const dependencies = {
    ...built,
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.recordedReplay === undefined ? {} : { replay: options.recordedReplay }),
  };
  const { wrapStore, logger, metrics } = options;
  const handler = createDiagnoseHandler(
    wrapStore === undefined
      ? dependencies
      : { ...dependencies, createStore: (budget) => wrapStore(dependencies.createStore(budget)) },
    { logger, metrics, leases: buildTenantLeases(settings, dynamo) },
  );
  return {
    handler,
    dynamo,
    /** Closes what this composition opened: the evidence adapters' MySQL pool and the DynamoDB client. */
    close: async () => {
      try {
        await adapters.close();
      } finally {
        dynamo.destroy();
      }
    },
  };
}
