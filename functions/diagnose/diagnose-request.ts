import { DiagnosisInputError, parseStartRequest, parseWorkflowRequest } from '@diagnosis/core';
import type middy from '@middy/core';
import { ulid } from 'ulid';
import type { HandlerContext } from '../lambda/handler-context.ts';
import { isHttpApiEvent } from '../lambda/http-api-event.ts';
import { readJsonBody } from '../lambda/read-json-body.ts';

const MAX_BODY_BYTES = 64 * 1024;

/**
 * Parses the request to diagnose and puts it on the context: from the workflow's task payload (the Diagnose function,
 * `parseWorkflowRequest`) or from `POST /diagnoses` (the StartDiagnosis function, `parseStartRequest`; a missing runId
 * gets a new ULID). An event of the other shape is refused, so each function has exactly one way in. Refusals throw
 * `DiagnosisInputError` with a stable code and a message that never echoes a value.
 */
export function parseDiagnoseRequest(
  from: 'workflow' | 'http',
): middy.MiddlewareObj<unknown, unknown, Error, HandlerContext> {
  return {
    before: ({ event, context }) => {
      if (isHttpApiEvent(event) !== (from === 'http')) {
        throw new DiagnosisInputError(
          'MALFORMED_EVENT',
          from === 'http' ? 'this route takes an HTTP request' : 'this function takes the workflow payload',
        );
      }
      // NOTE: core's one request schema; the ids are checked here, once, and the service trusts the parsed value.
      context.diagnoseRequest = isHttpApiEvent(event)
        ? parseStartRequest(readJsonBody(event, MAX_BODY_BYTES), ulid)
        : parseWorkflowRequest(event);
    },
  };
}
