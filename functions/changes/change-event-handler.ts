import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { ChangeSourceMapping } from '@diagnosis/core';
import type { ChangeStore } from '@diagnosis/core/store';
import middy from '@middy/core';
import * as v from 'valibot';
import type { Observability } from '../lambda/observability.ts';
import { cloudTrailChangeOf, cloudTrailEventSchema } from './cloudtrail-change.ts';
import { type ChangeAnswer, recordChange } from './record-change.ts';

export interface ChangeEventDeps {
  sources: readonly ChangeSourceMapping[];
  store: ChangeStore;
  now: () => number;
}

/**
 * The ChangeEvents Lambda, target of the EventBridge rule on CloudTrail management write calls (`AWS API Call via
 * CloudTrail`): the event is read as AWS documents it, mapped by the stage file's CloudTrail sources (account and
 * region, as alarms are), and recorded once (EventBridge and Lambda's asynchronous retries deliver at least once: a
 * repeat is `DUPLICATE`, nothing written). An event of another shape, read-only, failed, noise or unmapped records
 * nothing and is counted, never thrown (it will not get better when Lambda retries it); a store failure is thrown,
 * so Lambda tries again.
 */
export function createChangeEventHandler(deps: ChangeEventDeps, observability: Observability) {
  return middy<unknown, ChangeAnswer>()
    .use(injectLambdaContext(observability.logger, { resetKeys: true }))
    .use(logMetrics(observability.metrics))
    .handler(async (event) => {
      const parsed = v.safeParse(cloudTrailEventSchema, event);
      const decision = parsed.success
        ? cloudTrailChangeOf(parsed.output, deps.sources, deps.now())
        : ({ kind: 'ignored', code: 'NOT_A_CHANGE' } as const);
      return recordChange(decision, deps.store, observability);
    });
}
