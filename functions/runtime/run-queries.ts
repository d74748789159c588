import { isRunId, type RunStore, type StoredRun } from '@diagnosis/core';
import { canAccessTenant, type TenantAccessPolicy } from '@diagnosis/core/config';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { admitHttpEvent, errorResponse, type HttpApiEvent, json } from './http.ts';

const notFound = () => errorResponse(404, 'RUN_NOT_FOUND', 'no such run');

/**
 * The run a read route may show this caller, or the response to send instead. NOTE: a run of an enterprise the
 * caller may not use answers exactly like a missing one (404, same body), so run ids cannot be probed across tenants.
 */
async function readableRun(
  event: HttpApiEvent,
  store: Pick<RunStore, 'getRun'>,
  policy: TenantAccessPolicy,
): Promise<{ run: StoredRun; response?: never } | { run?: never; response: APIGatewayProxyStructuredResultV2 }> {
  const admitted = admitHttpEvent(event);
  if (admitted.response !== undefined) return { response: admitted.response };
  const runId = event.pathParameters?.runId;
  if (!isRunId(runId)) return { response: errorResponse(400, 'INVALID_RUN_ID', 'the run id is not valid') };
  const run = await store.getRun(runId);
  if (run === null || !canAccessTenant(policy, admitted.caller, run.enterpriseId)) return { response: notFound() };
  return { run };
}

function pageQuery(
  event: HttpApiEvent,
): { limit: number; cursor?: string; response?: never } | { response: APIGatewayProxyStructuredResultV2 } {
  const query = event.queryStringParameters ?? {};
  const unknown = Object.keys(query).filter((key) => key !== 'limit' && key !== 'cursor');
  if (unknown.length > 0) {
    return {
      response: errorResponse(400, 'INVALID_QUERY_PARAMETER', 'only limit and cursor are accepted on this route'),
    };
  }
  const limit = query.limit === undefined ? 100 : Number(query.limit);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100)
    return { response: errorResponse(400, 'INVALID_LIMIT', 'limit is 1 to 100') };
  if (query.cursor !== undefined && query.cursor.length > 2_048)
    return { response: errorResponse(400, 'INVALID_CURSOR', 'the cursor is not valid for this run') };
  return { limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) };
}

/** One page of a run's records as the response; a forged or foreign cursor is a 400, not a 500. */
async function pageResponse(
  runId: string,
  list: () => Promise<{ records: unknown[]; cursor: string | null }>,
  hasCursor: boolean,
): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    const page = await list();
    return json(200, { runId, records: page.records, cursor: page.cursor });
  } catch (error) {
    // NOTE: a cursor that passed the store's check but that DynamoDB still refuses is the caller's, not a 500.
    const refused =
      (error as { code?: string }).code === 'CORRUPT_ITEM' || (error as Error).name === 'ValidationException';
    if (refused && hasCursor) {
      return errorResponse(400, 'INVALID_CURSOR', 'the cursor is not valid for this run');
    }
    throw error;
  }
}

/** `GET /runs/{runId}`: the run's status and published result — never reasoning, never raw evidence. */
export function createGetRunHandler(store: Pick<RunStore, 'getRun'>, policy: TenantAccessPolicy = null) {
  return async (event: HttpApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
    const { run, response } = await readableRun(event, store, policy);
    if (response !== undefined) return response;
    return json(200, {
      runId: run.runId,
      sessionId: run.sessionId,
      enterpriseId: run.enterpriseId,
      status: run.status,
      query: run.query,
      conclusion: run.conclusion,
      stopReason: run.stopReason,
      errorCode: run.errorCode,
      publishedResult: run.publishedResult,
      report: run.report,
      usage: run.usage,
      createdAt: run.createdAt,
      endedAt: run.endedAt,
    });
  };
}

/**
 * `GET /runs/{runId}/audit`: the run's audit trail (run, steps, tool invocations), a page at a time (`?cursor=`,
 * `?limit=` up to 100). Never raw reasoning: that is `GET /runs/{runId}/reasoning`, its own function and route.
 */
export function createGetRunAuditHandler(
  store: Pick<RunStore, 'getRun' | 'listRunRecords'>,
  policy: TenantAccessPolicy = null,
) {
  return async (event: HttpApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
    const { run, response } = await readableRun(event, store, policy);
    if (response !== undefined) return response;
    const page = pageQuery(event);
    if (page.response !== undefined) return page.response;
    const { limit, cursor } = page;
    return pageResponse(
      run.runId,
      () => store.listRunRecords(run.runId, { limit, ...(cursor === undefined ? {} : { cursor }) }),
      cursor !== undefined,
    );
  };
}

/**
 * `GET /runs/{runId}/reasoning`: the model's raw reasoning and assistant text per round. Its own function and route,
 * so IAM grants it apart from the audit trail; its items live in their own partition with their own retention.
 */
export function createGetRunReasoningHandler(
  store: Pick<RunStore, 'getRun' | 'listReasoning'>,
  policy: TenantAccessPolicy = null,
) {
  return async (event: HttpApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
    const { run, response } = await readableRun(event, store, policy);
    if (response !== undefined) return response;
    const page = pageQuery(event);
    if (page.response !== undefined) return page.response;
    const { limit, cursor } = page;
    return pageResponse(
      run.runId,
      () => store.listReasoning(run.runId, { limit, ...(cursor === undefined ? {} : { cursor }) }),
      cursor !== undefined,
    );
  };
}
