import * as v from 'valibot';
import { DiagnosisInputError, issuePaths } from '../errors.ts';
import {
  ENTERPRISE_ID_PATTERN,
  isEnterpriseId,
  isRunId,
  isSessionId,
  RUN_ID_PATTERN,
  SESSION_ID_PATTERN,
} from '../run/ids.ts';
import { incidentWindowSchema, sameIncidentWindow } from '../run/incident-window.ts';
import type { DiagnosisRunRequest, RunIdentity } from '../run/run-request.ts';
import type { StoredRun } from '../store/run-store.ts';

/*
 * The request to diagnose as it crosses a process boundary, in one place: its schema, the format of its ids, and the
 * binding of a replayed runId to the request it was started for. NOTE: each id is checked once per boundary — by
 * `parseWorkflowRequest` (the Diagnose function), `parseStartRequest` (`POST /diagnoses`) or, for a caller inside
 * this process, by the service's own entry (`assertRequestIds`) — and the value that passed carries that in its type
 * ({@link Checked}), so the code after it trusts the value instead of checking again.
 */

declare const idsChecked: unique symbol;

/** Carried, in the type only, by a request whose run, session and enterprise ids were checked at its boundary. */
interface IdsChecked {
  readonly [idsChecked]: true;
}

/** A request whose ids were checked (by a parser below or by {@link assertRequestIds}): trusted downstream. */
export type Checked<T extends RunIdentity> = T & IdsChecked;

export type CheckedRunRequest = Checked<DiagnosisRunRequest>;

/** The request of a Diagnose task, and the workflow execution it runs in (absent when invoked outside a workflow). */
export type CheckedWorkflowRequest = Checked<DiagnosisRunRequest & { executionArn?: string | undefined }>;

/**
 * The execution the Diagnose task runs in (`$states.context.Execution.Id`): a DiagnosisWorkflow execution, or a child
 * execution of the DiagnosisBatch's Distributed Map (`…:execution:<batch>/<map run>:<name>`).
 */
const EXECUTION_ARN_PATTERN = /^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:execution:[A-Za-z0-9_.:/-]{1,400}$/;

const runIdSchema = v.pipe(v.string(), v.regex(RUN_ID_PATTERN));
const fields = {
  sessionId: v.pipe(v.string(), v.regex(SESSION_ID_PATTERN)),
  // NOTE: the canonical form only (no lower case): `e1001` is refused, never taken for E1001 or for another tenant.
  enterpriseId: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
  query: v.string(),
  continueSession: v.optional(v.boolean(), false),
};
const workflowPayloadSchema = v.strictObject({
  runId: runIdSchema,
  ...fields,
  executionArn: v.optional(v.pipe(v.string(), v.regex(EXECUTION_ARN_PATTERN))),
});
// NOTE: a caller may give its run an incident window (ISO instants, from before to, at most 7 days; stored in UTC):
// the tool boundary then refuses any time range outside it, as for a triggered run.
const startBodySchema = v.strictObject({
  runId: v.optional(runIdSchema),
  ...fields,
  window: v.exactOptional(incidentWindowSchema),
});

/**
 * The Step Functions task payload `{ runId, sessionId, enterpriseId, query, continueSession?, executionArn? }`.
 * Refusals throw {@link DiagnosisInputError} (`INVALID_REQUEST`, `QUERY_INVALID`) with a message that never echoes a
 * value.
 */
export function parseWorkflowRequest(payload: unknown): CheckedWorkflowRequest {
  const { executionArn, ...request } = parse(workflowPayloadSchema, payload);
  return { ...wellFormed(request), ...(executionArn === undefined ? {} : { executionArn }) };
}

/** The JSON body of `POST /diagnoses`; a missing runId gets `newRunId()` (the functions give it a new ULID). */
export function parseStartRequest(body: unknown, newRunId: () => string): CheckedRunRequest {
  const request = parse(startBodySchema, body);
  return wellFormed({ ...request, runId: request.runId ?? newRunId() });
}

/**
 * Refuses a request whose run, session or enterprise id is not one this service may store (INVALID_IDENTIFIER):
 * the check of a service entry called inside this process with a request no parser above has seen.
 */
export function assertRequestIds<T extends RunIdentity>(request: T): Checked<T> {
  if (!isRunId(request.runId) || !isSessionId(request.sessionId) || !isEnterpriseId(request.enterpriseId)) {
    throw new DiagnosisInputError('INVALID_IDENTIFIER', 'the run, session or enterprise id is not valid');
  }
  return trusted(request);
}

/**
 * Exact comparison of the stored request with the replayed one: every field, byte for byte. The window too, unless
 * `window: 'stored'` and the replay names none: the workflow's payload never carries it (the stored run's is used).
 */
export function sameRequest(
  stored: StoredRun,
  request: DiagnosisRunRequest,
  options: { window: 'strict' | 'stored' } = { window: 'strict' },
): boolean {
  const windowMatches =
    options.window === 'stored' && request.window === undefined
      ? true
      : sameIncidentWindow(stored.window, request.window);
  return (
    stored.enterpriseId === request.enterpriseId &&
    stored.sessionId === request.sessionId &&
    stored.query === request.query &&
    stored.continueSession === request.continueSession &&
    windowMatches
  );
}

function parse<T extends v.GenericSchema>(schema: T, value: unknown): v.InferOutput<T> {
  const result = v.safeParse(schema, value);
  if (result.success) return result.output;
  throw new DiagnosisInputError(
    'INVALID_REQUEST',
    `invalid or unexpected fields: ${issuePaths(result.issues).join(', ')}`,
  );
}

/**
 * A parsed request whose query is well-formed Unicode: one with lone surrogates cannot be passed byte for byte as
 * UTF-8, so it is refused here; blank and oversized queries are refused by the service with the configured limits,
 * also before anything is written. Its ids passed the schema's patterns.
 */
function wellFormed<T extends DiagnosisRunRequest>(request: T): Checked<T> {
  if (!request.query.isWellFormed()) {
    throw new DiagnosisInputError('QUERY_INVALID', 'the query is not valid Unicode text');
  }
  return trusted(request);
}

/** NOTE: the one place the brand is granted; only after the ids matched their patterns. */
function trusted<T extends RunIdentity>(request: T): Checked<T> {
  return request as Checked<T>;
}
