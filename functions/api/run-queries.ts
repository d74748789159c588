import {
  DiagnosisInputError,
  type FeedbackStore,
  feedbackView,
  openPseudonymBatches,
  type PastIncidentStore,
  type RunStore,
  statusWordOf,
} from '@diagnosis/core';
import type { IncidentStore } from '@diagnosis/core/store';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { DeliveryStore } from '../delivery/delivery-store.ts';
import { type HttpApiEvent, json } from '../lambda/http-api-event.ts';
import { pastIncidentView } from './past-incidents-handler.ts';
import { type RunRouteOptions, runRoute } from './run-route.ts';

type Page = { limit: number; cursor?: string };
type RecordPage = { records: unknown[]; cursor: string | null };

function pageQuery(event: HttpApiEvent): Page {
  const query = event.queryStringParameters ?? {};
  if (Object.keys(query).some((key) => key !== 'limit' && key !== 'cursor')) {
    throw new DiagnosisInputError('INVALID_QUERY_PARAMETER', 'only limit and cursor are accepted on this route');
  }
  // NOTE: decimal digits only, like `?wait`: `Number()` alone would take ' 5', '0x10' or '1e2'.
  if (query.limit !== undefined && !/^[1-9][0-9]{0,2}$/.test(query.limit))
    throw new DiagnosisInputError('INVALID_LIMIT', 'limit is 1 to 100');
  const limit = query.limit === undefined ? 100 : Number(query.limit);
  if (limit > 100) throw new DiagnosisInputError('INVALID_LIMIT', 'limit is 1 to 100');
  if (query.cursor !== undefined && query.cursor.length > 2_048) throw invalidCursor();
  return { limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) };
}

const invalidCursor = () => new DiagnosisInputError('INVALID_CURSOR', 'the cursor is not valid for this run');

/** One page of a run's records; a forged or foreign cursor is the caller's error, not a 500. */
async function pageResponse(
  runId: string,
  event: HttpApiEvent,
  list: (runId: string, page: Page) => Promise<RecordPage>,
): Promise<APIGatewayProxyStructuredResultV2> {
  const query = pageQuery(event);
  try {
    const page = await list(runId, query);
    return json(200, { runId, records: page.records, cursor: page.cursor });
  } catch (error) {
    // NOTE: a cursor that passed the store's check but that DynamoDB still refuses is the caller's, not a 500.
    const refused =
      (error as { code?: string }).code === 'CORRUPT_ITEM' || (error as Error).name === 'ValidationException';
    if (refused && query.cursor !== undefined) throw invalidCursor();
    throw error;
  }
}

/**
 * `GET /runs/{runId}`: the run's status and published result — never reasoning, never raw evidence — its process
 * scorecard, the delivery of its result to each destination of its enterprise (`delivery`: null where no delivery
 * store is given), with a feedback store the responders' verdicts (every entry, each caller's newest `current`), and
 * for a triggered run its trigger, its incident window and the later events of its incident (at most 100).
 */
export function createGetRunHandler(
  store: Pick<RunStore, 'getRun'>,
  options: RunRouteOptions & {
    deliveries?: Pick<DeliveryStore, 'listDeliveries'>;
    incidents?: Pick<IncidentStore, 'listIncidentEvents'>;
    feedback?: Pick<FeedbackStore, 'listFeedback'>;
    /** The run's own past incident (its enterprise's memory of it), shown as `pastIncident`. */
    pastIncidents?: Pick<PastIncidentStore, 'get'>;
  },
) {
  return runRoute(store, options, async (run) =>
    json(200, {
      runId: run.runId,
      sessionId: run.sessionId,
      enterpriseId: run.enterpriseId,
      status: statusWordOf(run.status),
      query: run.query,
      trigger: run.trigger,
      window: run.window,
      incidentEvents:
        run.trigger === null || options.incidents === undefined
          ? []
          : (await options.incidents.listIncidentEvents(run.runId)).map(({ runId: _, ...event }) => event),
      conclusion: run.conclusion,
      stopReason: run.stopReason,
      collectionStopReason: run.collectionStopReason,
      errorCode: run.errorCode,
      publishedResult: run.publishedResult,
      report: run.report,
      // While it runs: rounds done, tool calls by status and tokens so far (progress, usage) and the time left.
      progress: run.progress,
      usage: run.usage,
      deadlineAt: run.deadlineAt,
      timeLeftMs:
        run.status === 'RUNNING' && run.deadlineAt !== null
          ? Math.max(0, Date.parse(run.deadlineAt) - Date.now())
          : null,
      cancelRequestedAt: run.cancelRequestedAt,
      // How the run worked, computed from its audit when it completed (docs/learning-from-runs.md); null: none.
      processScorecard: run.processScorecard ?? null,
      ...(options.feedback === undefined
        ? {}
        : { feedback: feedbackView(await options.feedback.listFeedback(run.runId)) }),
      // The run as a past incident of its enterprise (rated CORRECT or PARTIALLY_CORRECT, not retracted), or null; the
      // past runs this run looked at are the report's `seen_before`.
      ...(options.pastIncidents === undefined
        ? {}
        : { pastIncident: await pastIncidentOf(options.pastIncidents, run.enterpriseId, run.runId) }),
      createdAt: run.createdAt,
      endedAt: run.endedAt,
      delivery: options.deliveries === undefined ? null : await options.deliveries.listDeliveries(run),
    }),
  );
}

async function pastIncidentOf(store: Pick<PastIncidentStore, 'get'>, enterpriseId: string, runId: string) {
  const incident = await store.get(enterpriseId, runId, Date.now());
  return incident === null ? null : pastIncidentView(incident);
}

/**
 * `GET /runs/{runId}/audit`: the run's audit trail (run, steps, tool invocations), a page at a time (`?cursor=`,
 * `?limit=` up to 100). Never raw reasoning: that is `GET /runs/{runId}/reasoning`, its own function and route.
 */
export function createGetRunAuditHandler(store: Pick<RunStore, 'getRun' | 'listRunRecords'>, options: RunRouteOptions) {
  return runRoute(store, options, (run, event) =>
    pageResponse(run.runId, event, (runId, page) => store.listRunRecords(runId, page)),
  );
}

/**
 * `GET /runs/{runId}/reasoning`: the model's raw reasoning and assistant text per round. Its own function and route,
 * so IAM grants it apart from the audit trail; its items live in their own partition with their own retention.
 */
export function createGetRunReasoningHandler(
  store: Pick<RunStore, 'getRun' | 'listReasoning'>,
  options: RunRouteOptions,
) {
  return runRoute(store, options, (run, event) =>
    pageResponse(run.runId, event, (runId, page) => store.listReasoning(runId, page)),
  );
}

/**
 * `GET /runs/{runId}/reveal`: the real values behind the run's pseudonyms (`{ token, kind, value }`), a page of its
 * stored batches at a time. Its own function and route, so IAM grants it apart from every other reader; it is the only
 * reader whose role reaches the run's `PSEUDONYMS#<runId>` partition and the masking secret that opens it. Tenant-checked
 * like the other routes: another enterprise's run answers 404.
 */
export function createGetRunRevealHandler(
  store: Pick<RunStore, 'getRun' | 'listPseudonyms'>,
  options: RunRouteOptions & { maskingSecret: string | null },
) {
  const { maskingSecret } = options;
  return runRoute(store, options, (run, event) =>
    pageResponse(run.runId, event, async (runId, page) => {
      // NOTE: after the tenant check (another enterprise's run is still 404); never the public development key.
      if (maskingSecret === null) {
        throw new DiagnosisInputError('MASKING_UNAVAILABLE', 'no masking secret is linked to this function');
      }
      const batches = await store.listPseudonyms(runId, page);
      const entries = openPseudonymBatches(maskingSecret, runId, batches.records);
      return {
        records: entries.map((entry) => ({ token: entry.token, kind: entry.kind, value: entry.value })),
        cursor: batches.cursor,
      };
    }),
  );
}
