import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { type SweepDeps, sweepOpenRuns } from '@diagnosis/core';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { SWEEP_METRICS } from '../lambda/metric-names.ts';
import type { Observability } from '../lambda/observability.ts';

/** Time kept at the end of the sweeper's invocation: it stops checking runs this long before its deadline. */
const SWEEP_TIME_RESERVE_MS = 5_000;

/**
 * The SweepRuns Lambda, on a schedule (every 5 minutes): `sweepOpenRuns` over every enterprise's open runs — closes
 * the abandoned ones FAILED `RUN_ABANDONED`, frees their lease slots, repairs the open-run sets — and emits what it
 * did as metrics and one log line (counts and run ids only). The event's content is not read: only the schedule may
 * invoke it, and a sweep is harmless whenever it runs.
 */
export function createSweepHandler(deps: Omit<SweepDeps, 'hasTime' | 'log'>, options: Observability) {
  const { logger, metrics } = options;
  return middy<unknown, { checked: number; closed: number; repaired: number; errors: number; partial: boolean }>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .handler(async (_event, context: Context) => {
      const report = await sweepOpenRuns({
        ...deps,
        hasTime: () => context.getRemainingTimeInMillis() > SWEEP_TIME_RESERVE_MS,
        log: ({ message, ...fields }) => logger.info(String(message), fields),
      });
      metrics.addMetric(SWEEP_METRICS.checked, MetricUnit.Count, report.checked);
      metrics.addMetric(SWEEP_METRICS.abandonedRunsClosed, MetricUnit.Count, report.closed.length);
      metrics.addMetric(SWEEP_METRICS.errors, MetricUnit.Count, report.errors);
      logger.info('sweep finished', { ...report, closed: report.closed.length, closedRunIds: report.closed });
      return {
        checked: report.checked,
        closed: report.closed.length,
        repaired: report.repaired,
        errors: report.errors,
        partial: report.partial,
      };
    });
}
