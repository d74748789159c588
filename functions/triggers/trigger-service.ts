import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  handleIncidentEvent,
  type IncidentDeps,
  type IncidentEventKind,
  type IncidentMasking,
  type IncidentOutcome,
  type StartDiagnosisDeps,
  safeErrorName,
} from '@diagnosis/core';
import type { ChangeStore, IncidentStore, RunStatus } from '@diagnosis/core/store';
import { OUTCOME_DIMENSION, TRIGGER_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import type { IgnoredCode, TriggerConfig, TriggerDecision } from './incident-facts.ts';

/** What the Trigger functions are built from, once per cold start. */
export interface TriggerDeps {
  config: TriggerConfig;
  incidents: IncidentStore;
  start: StartDiagnosisDeps;
  quietPeriodMs: number;
  now: () => number;
  newRunId: () => string;
  /** The masking of the sender's texts: the runs' own, and the table's pseudonym maps. */
  masking: IncidentMasking;
  /** The enterprises' changes, counted in a new run's lookback for its question. */
  changes?: Pick<ChangeStore, 'list'>;
}

/** What a trigger answers for one event: ids, outcome and codes only. */
export type TriggerAnswer =
  | { outcome: 'STARTED'; runId: string; sessionId: string; continued: boolean; status: RunStatus }
  | { outcome: 'ATTACHED'; runId: string; sequence: number; kind: IncidentEventKind }
  | { outcome: 'IGNORED'; code: IgnoredCode };

/**
 * Handles one decided event: an ignored one is counted (an unmapped alarm on its own metric) and starts nothing; an
 * incident goes through `handleIncidentEvent` (one run per incident). Metrics and a log line per event, ids and codes
 * only. A failure is counted and thrown on (Lambda retries an EventBridge event; a webhook sender gets 500 and
 * retries).
 */
export async function answerTriggerDecision(
  decision: TriggerDecision,
  deps: TriggerDeps,
  observability: Observability,
): Promise<TriggerAnswer> {
  const { logger, metrics } = observability;
  if (decision.kind === 'ignored') {
    metrics.addDimension(OUTCOME_DIMENSION, 'IGNORED');
    metrics.addMetric(TRIGGER_METRICS.events, MetricUnit.Count, 1);
    if (decision.code === 'UNMAPPED') metrics.addMetric(TRIGGER_METRICS.unmapped, MetricUnit.Count, 1);
    metrics.addMetadata('ignoredCode', decision.code);
    logger.info('trigger event ignored', { code: decision.code });
    return { outcome: 'IGNORED', code: decision.code };
  }
  const incidentDeps: IncidentDeps = {
    incidents: deps.incidents,
    start: deps.start,
    quietPeriodMs: deps.quietPeriodMs,
    now: deps.now,
    newRunId: deps.newRunId,
    masking: deps.masking,
    ...(deps.changes === undefined ? {} : { changes: deps.changes }),
  };
  let outcome: IncidentOutcome;
  try {
    outcome = await handleIncidentEvent(decision.event, incidentDeps);
  } catch (error) {
    metrics.addDimension(OUTCOME_DIMENSION, 'FAILED');
    metrics.addMetric(TRIGGER_METRICS.events, MetricUnit.Count, 1);
    metrics.addMetric(TRIGGER_METRICS.failures, MetricUnit.Count, 1);
    logger.error('trigger event failed', {
      source: decision.event.ref.source,
      enterpriseId: decision.event.ref.enterpriseId,
      error: safeErrorName(error),
      code: (error as { code?: unknown }).code ?? null,
    });
    throw error;
  }
  metrics.addDimension(OUTCOME_DIMENSION, outcome.outcome);
  metrics.addMetric(TRIGGER_METRICS.events, MetricUnit.Count, 1);
  if (outcome.outcome === 'IGNORED') {
    metrics.addMetadata('ignoredCode', outcome.code);
    logger.info('trigger event ignored', { code: outcome.code, kind: decision.event.kind });
    return { outcome: 'IGNORED', code: outcome.code };
  }
  logger.info('trigger event handled', {
    source: decision.event.ref.source,
    enterpriseId: decision.event.ref.enterpriseId,
    kind: decision.event.kind,
    outcome: outcome.outcome,
    runId: outcome.runId,
  });
  if (outcome.outcome === 'ATTACHED') {
    return { outcome: 'ATTACHED', runId: outcome.runId, sequence: outcome.sequence, kind: decision.event.kind };
  }
  return {
    outcome: 'STARTED',
    runId: outcome.runId,
    sessionId: outcome.sessionId,
    continued: outcome.continued,
    status: outcome.run.status,
  };
}
