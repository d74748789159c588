import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { changeIdOf, safeErrorName } from '@diagnosis/core';
import type { ChangeStore } from '@diagnosis/core/store';
import { CHANGE_METRICS, OUTCOME_DIMENSION } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';
import type { ChangeDecision, ChangeIgnoredCode } from './change-decision.ts';

/** What a change source answers for one event: ids, outcome and codes only. */
export type ChangeAnswer =
  | { outcome: 'RECORDED'; changeId: string }
  | { outcome: 'DUPLICATE'; changeId: string }
  | { outcome: 'IGNORED'; code: ChangeIgnoredCode };

/**
 * Records one decided event: a change is stored once (`RECORDED`, or `DUPLICATE` when its id was stored before:
 * nothing is written then); an ignored event is counted and writes nothing. One metric and one log line per event,
 * ids and codes only, never a text of the change. A store failure is counted and thrown (a webhook sender gets 500
 * and retries; Lambda retries an EventBridge event).
 */
export async function recordChange(
  decision: ChangeDecision,
  store: ChangeStore,
  observability: Observability,
): Promise<ChangeAnswer> {
  const { logger, metrics } = observability;
  if (decision.kind === 'ignored') {
    metrics.addDimension(OUTCOME_DIMENSION, 'IGNORED');
    metrics.addMetric(CHANGE_METRICS.events, MetricUnit.Count, 1);
    metrics.addMetadata('ignoredCode', decision.code);
    logger.info('change ignored', { code: decision.code });
    return { outcome: 'IGNORED', code: decision.code };
  }
  const { change } = decision;
  const changeId = changeIdOf(change.source, change.origin, change.eventId);
  let stored: 'STORED' | 'DUPLICATE';
  try {
    stored = await store.record(change);
  } catch (error) {
    metrics.addDimension(OUTCOME_DIMENSION, 'FAILED');
    metrics.addMetric(CHANGE_METRICS.events, MetricUnit.Count, 1);
    metrics.addMetric(CHANGE_METRICS.failures, MetricUnit.Count, 1);
    logger.error('change failed', {
      source: change.source,
      enterpriseId: change.enterpriseId,
      error: safeErrorName(error),
      code: (error as { code?: unknown }).code ?? null,
    });
    throw error;
  }
  const outcome = stored === 'STORED' ? 'RECORDED' : 'DUPLICATE';
  metrics.addDimension(OUTCOME_DIMENSION, outcome);
  metrics.addMetric(CHANGE_METRICS.events, MetricUnit.Count, 1);
  logger.info('change handled', {
    source: change.source,
    enterpriseId: change.enterpriseId,
    kind: change.kind,
    outcome,
    changeId,
  });
  return { outcome, changeId };
}
