import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Observability } from '../lambda/observability.ts';
import { parseCloudWatchAlarmEvent } from './cloudwatch-alarm-event.ts';
import { answerTriggerDecision, type TriggerAnswer, type TriggerDeps } from './trigger-service.ts';

/**
 * The Trigger Lambda, target of the EventBridge rule on `CloudWatch Alarm State Change` into ALARM: the event is read
 * as AWS documents it, mapped by the stage file's `triggers` (an unmapped alarm starts nothing and is counted), and
 * handled as one incident (one run per incident, later events attached). Returns what it did; a failure to start a
 * mapped incident's run is thrown, so Lambda's retries of the asynchronous invocation try again (the incident's claim
 * is given back when no run was stored).
 */
export function createTriggerHandler(deps: TriggerDeps, observability: Observability) {
  return middy<unknown, TriggerAnswer>()
    .use(injectLambdaContext(observability.logger, { resetKeys: true }))
    .use(logMetrics(observability.metrics))
    .handler(async (event) =>
      answerTriggerDecision(parseCloudWatchAlarmEvent(event, deps.config, deps.now()), deps, observability),
    );
}
