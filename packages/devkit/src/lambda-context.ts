import type { Context } from 'aws-lambda';

/**
 * A Lambda context for invocations outside Lambda (the in-process workflow, the local runner, tests): its remaining
 * time counts down from `remainingMs` in real time, as in a real invocation.
 */
export function lambdaContext(remainingMs: number, functionName = 'Diagnose'): Context {
  const end = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: `local-${Math.random().toString(36).slice(2)}`,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, end - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
