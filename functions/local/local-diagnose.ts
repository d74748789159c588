import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DiagnosisResult } from '@diagnosis/core';
import type { DiagnosisSettings } from '@diagnosis/core/config';
import type { Context } from 'aws-lambda';
import { composeDiagnoseFunction, type DiagnoseFunctionOptions } from '../diagnose/diagnose-function.ts';

/**
 * The Diagnose task's payload as the DiagnosisWorkflow hands it over. The function still parses it as untrusted
 * input (a refused payload throws the named error the workflow catches); this type only says what a local caller
 * sends.
 */
export interface DiagnoseTaskPayload {
  runId: string;
  sessionId: string;
  enterpriseId: string;
  query: string;
  continueSession?: boolean;
  executionArn?: string;
}

export interface LocalDiagnoseOptions extends DiagnoseFunctionOptions {
  /**
   * The Lambda context of one invocation (devkit's `lambdaContext(ms)` outside Lambda): the function reads its
   * deadline from it, as it does on Lambda.
   */
  context: () => Context;
}

/** The Diagnose function for callers outside Lambda: the command line, the batch runner and the eval. */
export interface LocalDiagnose {
  /** One run through the function's whole chain (logger, metrics, errors, payload parser, lease, service). */
  diagnose(payload: DiagnoseTaskPayload): Promise<DiagnosisResult>;
  /**
   * The same chain for a payload the caller did not build (a local workflow interpreter's task input), with the
   * context it holds (each attempt its own) or a new one.
   */
  invoke(payload: unknown, context?: Context): Promise<DiagnosisResult>;
  /** The function's DynamoDB client. */
  dynamo: DynamoDBClient;
  /** Closes the function's MySQL pool and DynamoDB client: a process that composed it must call it to exit. */
  close(): Promise<void>;
}

/**
 * The Diagnose function built by the Lambda's own composition root (`composeDiagnoseFunction`), typed for local
 * callers so none of them casts its answer: every caller runs the deployed chain, not a copy of it.
 */
export async function createLocalDiagnose(
  settings: DiagnosisSettings,
  options: LocalDiagnoseOptions,
): Promise<LocalDiagnose> {
  const { context, ...functionOptions } = options;
  const { handler, dynamo, close } = await composeDiagnoseFunction(settings, functionOptions);
  return {
    close,
    diagnose: (payload) => handler(payload, context()),
    invoke: (payload, invocationContext) => handler(payload, invocationContext ?? context()),
    dynamo,
  };
}
