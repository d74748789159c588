import type { RunStore } from '@diagnosis/core';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ID_PATTERN } from './diagnose-request.ts';
import { errorResponse, type HttpApiEvent, hasIamCaller, json } from './http.ts';

/** `GET /runs/{runId}`: the run's status and published result — never reasoning, never raw evidence. */
export function createGetRunHandler(store: Pick<RunStore, 'getRun'>) {
  return async (event: HttpApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
    if (!hasIamCaller(event)) return errorResponse(403, 'FORBIDDEN', 'this route requires IAM authorization');
    const runId = event.pathParameters?.runId;
    if (runId === undefined || !ID_PATTERN.test(runId))
      return errorResponse(400, 'INVALID_RUN_ID', 'the run id is not valid');
    const run = await store.getRun(runId);
    if (run === null) return errorResponse(404, 'RUN_NOT_FOUND', 'no such run');
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
 * `GET /runs/{runId}/audit`: the run's audit trail, a page at a time (`?cursor=`, `?limit=` up to 100). The raw
 * reasoning and assistant texts are included only with `?include=reasoning`, and this function is separate from the
 * read function so that access to it can be granted separately.
 */
export function createGetRunAuditHandler(store: Pick<RunStore, 'getRun' | 'listRunRecords'>) {
  return async (event: HttpApiEvent): Promise<APIGatewayProxyStructuredResultV2> => {
    if (!hasIamCaller(event)) return errorResponse(403, 'FORBIDDEN', 'this route requires IAM authorization');
    const runId = event.pathParameters?.runId;
    if (runId === undefined || !ID_PATTERN.test(runId))
      return errorResponse(400, 'INVALID_RUN_ID', 'the run id is not valid');
    const query = event.queryStringParameters ?? {};
    const include = query.include;
    if (include !== undefined && include !== 'reasoning')
      return errorResponse(400, 'INVALID_INCLUDE', 'include may only be reasoning');
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100)
      return errorResponse(400, 'INVALID_LIMIT', 'limit is 1 to 100');
    if ((await store.getRun(runId)) === null) return errorResponse(404, 'RUN_NOT_FOUND', 'no such run');
    try {
      const page = await store.listRunRecords(runId, {
        includeReasoning: include === 'reasoning',
        limit,
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      });
      // NOTE: a step's `thought` mirrors its reasoning, so it is reasoning too: only with include=reasoning.
      const records =
        include === 'reasoning'
          ? page.records
          : page.records.map((record) => (record.entity === 'agent_step' ? { ...record, thought: undefined } : record));
      return json(200, { runId, records, cursor: page.cursor });
    } catch (error) {
      if ((error as { code?: string }).code === 'CORRUPT_ITEM' && query.cursor !== undefined) {
        return errorResponse(400, 'INVALID_CURSOR', 'the cursor is not valid for this run');
      }
      throw error;
    }
  };
}
