import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { DiagnosisInputError, PAST_INCIDENT_LIMITS, type PastIncident, type PastIncidentStore } from '@diagnosis/core';
import { canAccessTenant, type TenantAccessPolicy } from '@diagnosis/core/config';
import { isEnterpriseId, isRunId } from '@diagnosis/core/ids';
import middy from '@middy/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { HandlerContext } from '../lambda/handler-context.ts';
import { type HttpApiEvent, json } from '../lambda/http-api-event.ts';
import { mapErrors } from '../lambda/map-errors.ts';
import type { Observability } from '../lambda/observability.ts';
import { requireIamCaller } from './require-iam-caller.ts';

export interface PastIncidentsRouteOptions extends Pick<Observability, 'logger'> {
  policy: TenantAccessPolicy;
  now?: () => number;
}

/** A past incident as the route and the command line show it (wire names; its texts as stored: masked). */
export function pastIncidentView(incident: PastIncident) {
  return {
    runId: incident.runId,
    occurredAt: incident.occurredAt,
    services: incident.services,
    conclusion: incident.conclusion,
    rootCause: incident.rootCause,
    rating: incident.rating,
    ratedAt: incident.ratedAt,
    expiresAt: new Date(incident.expiresAt).toISOString(),
  };
}

/**
 * `GET /enterprises/{enterpriseId}/past-incidents` (a page, newest first: `?limit=` up to 50, `?cursor=`) and
 * `DELETE /enterprises/{enterpriseId}/past-incidents/{runId}` (forget it for good: a later rating cannot bring it
 * back). The IAM gate, then the tenant policy on the path's enterprise (403 `FORBIDDEN_TENANT`, before any read), so
 * a caller only ever reads or forgets memories of an enterprise it may use; the store's keys start with that
 * enterprise, so nothing of another is read, listed or counted. A forget of a run the enterprise has no memory of
 * answers 404 `PAST_INCIDENT_NOT_FOUND` (whatever another enterprise holds).
 */
export function createPastIncidentsHandler(
  incidents: Pick<PastIncidentStore, 'list' | 'retract' | 'get'>,
  options: PastIncidentsRouteOptions,
) {
  const now = options.now ?? Date.now;
  return middy<HttpApiEvent, APIGatewayProxyStructuredResultV2, Error, HandlerContext>()
    .use(injectLambdaContext(options.logger, { resetKeys: true }))
    .use(mapErrors(options.logger))
    .use(requireIamCaller({ httpOnly: true }))
    .handler(async (event, context) => {
      const caller = context.caller;
      if (caller === undefined) throw new Error('the IAM gate did not run');
      const enterpriseId = event.pathParameters?.enterpriseId;
      if (enterpriseId === undefined || !isEnterpriseId(enterpriseId)) {
        throw new DiagnosisInputError('INVALID_IDENTIFIER', 'the path does not name a valid enterprise id');
      }
      if (!canAccessTenant(options.policy, caller, enterpriseId)) {
        throw new DiagnosisInputError('FORBIDDEN_TENANT', 'this caller may not use this enterprise');
      }
      const method = event.requestContext.http?.method;
      const runId = event.pathParameters?.runId;
      if (runId === undefined) {
        if (method !== 'GET') throw new DiagnosisInputError('METHOD_NOT_ALLOWED', 'this route answers GET only');
        const page = pageOf(event);
        const listed = await incidents.list(enterpriseId, {
          ...page,
          now: now(),
          onUnreadable: (errorClass, code) =>
            options.logger.warn('past incident unreadable: skipped from the listing', { errorClass, code }),
        });
        return json(200, {
          enterpriseId,
          pastIncidents: listed.incidents.map(pastIncidentView),
          cursor: listed.cursor,
        });
      }
      if (method !== 'DELETE') throw new DiagnosisInputError('METHOD_NOT_ALLOWED', 'this route answers DELETE only');
      if (!isRunId(runId)) throw new DiagnosisInputError('INVALID_RUN_ID', 'the path does not name a valid run id');
      const forgotten = await incidents.retract(enterpriseId, runId, 'FORGOTTEN', new Date(now()).toISOString());
      if (!forgotten) {
        throw new DiagnosisInputError('PAST_INCIDENT_NOT_FOUND', 'this enterprise has no past incident of that run');
      }
      return json(200, { enterpriseId, runId, forgotten: true });
    });
}

function pageOf(event: HttpApiEvent): { limit: number; cursor?: string } {
  const query = event.queryStringParameters ?? {};
  if (Object.keys(query).some((key) => key !== 'limit' && key !== 'cursor')) {
    throw new DiagnosisInputError('INVALID_QUERY_PARAMETER', 'only limit and cursor are accepted on this route');
  }
  if (query.limit !== undefined && !/^[1-9][0-9]?$/.test(query.limit)) {
    throw new DiagnosisInputError('INVALID_LIMIT', `limit is 1 to ${PAST_INCIDENT_LIMITS.pageSize}`);
  }
  const limit = query.limit === undefined ? PAST_INCIDENT_LIMITS.pageSize : Number(query.limit);
  if (limit > PAST_INCIDENT_LIMITS.pageSize) {
    throw new DiagnosisInputError('INVALID_LIMIT', `limit is 1 to ${PAST_INCIDENT_LIMITS.pageSize}`);
  }
  if (query.cursor !== undefined && query.cursor.length > 400) {
    throw new DiagnosisInputError('INVALID_CURSOR', 'the cursor is not one this listing gave');
  }
  return { limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) };
}
