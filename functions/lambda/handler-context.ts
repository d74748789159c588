import type { CheckedWorkflowRequest, StoredRun } from '@diagnosis/core';
import type { IamCaller } from '@diagnosis/core/config';
import type { Context } from 'aws-lambda';

/** The Lambda context as this service's middlewares fill it in for the handler. */
export interface HandlerContext extends Context {
  /** The IAM caller of an HTTP API event (set by `requireIamCaller`); absent for a Step Functions payload. */
  caller?: IamCaller;
  /**
   * The request to diagnose (set by `parseDiagnoseRequest`), with the workflow execution of a Diagnose task: its ids
   * were checked there, once, and the service trusts them.
   */
  diagnoseRequest?: CheckedWorkflowRequest;
  /** The run a read route may show this caller (set by `loadReadableRun`). */
  readableRun?: StoredRun;
}
