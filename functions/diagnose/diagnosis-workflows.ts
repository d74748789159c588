/**
 * The Amazon States Language definitions of the two state machines, as plain JSON objects: `DiagnosisWorkflow` (one
 * diagnosis) and `DiagnosisBatch` (a Distributed Map of diagnoses). `sst.config.ts` deploys exactly what these
 * functions return; the tests validate the same objects with `asl-validator` and run them with a local interpreter
 * against the real Diagnose handler (`packages/devkit/src/local-workflow.ts`), so the deployed definition is the tested one.
 *
 * Both use JSONata. The error names are those `functions/lambda/map-errors.ts` throws to Step Functions.
 */

/** The ARN Step Functions gives an execution named `name` of the state machine `stateMachineArn`. */
export function executionArnOf(stateMachineArn: string, name: string): string {
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`;
}

/** The state machine ARN local runs and tests give the DiagnosisWorkflow (no AWS account: a local stand-in). */
export const LOCAL_WORKFLOW_ARN = 'arn:aws:states:local:000000000000:stateMachine:DiagnosisWorkflow';

/** A state machine definition (ASL JSON). */
export interface StateMachineDefinition {
  Comment?: string;
  QueryLanguage: 'JSONata';
  StartAt: string;
  States: Record<string, AslState>;
}

export type AslState = Record<string, unknown> & { Type: string };

export interface Retrier {
  ErrorEquals: string[];
  IntervalSeconds: number;
  MaxAttempts: number;
  BackoffRate: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: 'FULL' | 'NONE';
}

export interface DiagnosisWorkflowOptions {
  /** The Diagnose function's ARN (a Pulumi output is resolved before this is called). */
  diagnoseFunctionArn: string;
}

export interface DiagnosisBatchOptions extends DiagnosisWorkflowOptions {
  /** Child executions of the Distributed Map running at once (the per-enterprise cap is enforced in the table). */
  maxConcurrency: number;
}

/** Error names of the Diagnose Lambda (see `answerFor` in `functions/lambda/map-errors.ts`). */
export const DIAGNOSE_ERRORS = Object.freeze({
  input: 'DiagnosisInputError',
  runConflict: 'DiagnosisRunConflictError',
  runIdConflict: 'DiagnosisRunIdConflictError',
  service: 'DiagnosisServiceError',
  tenantBusy: 'DiagnosisTenantBusyError',
} as const);

/** Transient failures of the Lambda service itself, retried like `DiagnosisServiceError`. */
export const TRANSIENT_LAMBDA_ERRORS = Object.freeze([
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
] as const);

/**
 * A Diagnose invocation that died — its Lambda timed out (`Sandbox.Timedout`), ran out of memory or crashed
 * (`Lambda.Unknown`) — is retried twice, 90 s and then 6 minutes later: a run it had not yet taken is then run, and a
 * run it held is, once the abandonment rule says no invocation can still be working on it (its deadline and flush
 * reserve plus a 60 s margin have passed, see `packages/core/src/service/abandonment.ts`), closed FAILED
 * `RUN_ABANDONED` by the retry — never run twice. A run still inside its deadline answers RUN_IN_PROGRESS, and the
 * sweeper closes it.
 */
export const CRASHED_LAMBDA_ERRORS = Object.freeze(['Sandbox.Timedout', 'Lambda.Unknown'] as const);

const busyRetrier = (maxAttempts: number): Retrier => ({
  ErrorEquals: [DIAGNOSE_ERRORS.tenantBusy],
  IntervalSeconds: 2,
  MaxAttempts: maxAttempts,
  BackoffRate: 1.5,
  MaxDelaySeconds: 30,
  JitterStrategy: 'FULL',
});

/**
 * The Diagnose task's retriers. NOTE: a retry with the same runId never runs the agent twice (a finished run answers
 * with its stored outcome). A refused lease or admission (`DiagnosisTenantBusyError`: the enterprise already has its
 * cap of runs) is waited out here, in the workflow, with jittered backoff: a waiting Standard execution costs
 * nothing, a Lambda waiting in a loop would pay for idle time and eat the run's own deadline. 120 attempts of at most
 * 30 s: up to about 58 minutes (about 29 on average with full jitter), then `TenantBusy` — long enough for an
 * enterprise's 20 open runs (TENANT_MAX_OPEN_RUNS) to drain through its 4 slots (TENANT_MAX_CONCURRENT_RUNS) of
 * 5-minute runs.
 */
export const DIAGNOSE_RETRIERS: readonly Retrier[] = Object.freeze([
  {
    ErrorEquals: [...TRANSIENT_LAMBDA_ERRORS, DIAGNOSE_ERRORS.service],
    IntervalSeconds: 2,
    MaxAttempts: 2,
    BackoffRate: 2,
  },
  busyRetrier(120),
  { ErrorEquals: [...CRASHED_LAMBDA_ERRORS], IntervalSeconds: 90, MaxAttempts: 2, BackoffRate: 4 },
]);

/**
 * A batch item's retriers: the same, but a busy enterprise is waited out for as long as it takes (10,000 attempts of
 * at most 30 s: days): a batch larger than the enterprise's bounds waits; it never fails for being large.
 */
export const BATCH_ITEM_RETRIERS: readonly Retrier[] = Object.freeze(
  DIAGNOSE_RETRIERS.map((retrier) =>
    retrier.ErrorEquals.includes(DIAGNOSE_ERRORS.tenantBusy) ? busyRetrier(10_000) : retrier,
  ),
);

/**
 * How long a QUEUED run may wait for its DiagnosisWorkflow to take it before the sweeper closes it as abandoned: the
 * longest the workflow's retriers can keep its Diagnose task waiting, plus one Lambda timeout (15 minutes, the most
 * a function may have) as a margin. A workflow that gives up earlier closes its run itself (its FAILED event).
 */
export function queuedStartTimeoutMs(): number {
  return (longestRetryWaitSeconds(DIAGNOSE_RETRIERS) + 15 * 60) * 1_000;
}

/** The longest a Task's retriers can keep it waiting before it gives up (every retrier spent, without jitter). */
export function longestRetryWaitSeconds(retriers: readonly Retrier[]): number {
  let total = 0;
  for (const retrier of retriers) {
    for (let attempt = 0; attempt < retrier.MaxAttempts; attempt += 1) {
      const interval = retrier.IntervalSeconds * retrier.BackoffRate ** attempt;
      total += Math.min(interval, retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY);
    }
  }
  return total;
}

/**
 * The payload the Diagnose task sends: the execution name is the runId when the input names none; `executionArn` is
 * the execution the task runs in (a batch item's is its own child execution), which the run is bound to.
 */
export const DIAGNOSE_PAYLOAD = Object.freeze({
  runId: '{% $exists($states.input.runId) ? $states.input.runId : $states.context.Execution.Name %}',
  sessionId: '{% $states.input.sessionId %}',
  enterpriseId: '{% $states.input.enterpriseId %}',
  query: '{% $states.input.query %}',
  continueSession: '{% $exists($states.input.continueSession) ? $states.input.continueSession : false %}',
  executionArn: '{% $states.context.Execution.Id %}',
});

/** The terminal state each result `status` leads to; any other status is `DiagnosisFailed`. */
export const RELEASED_STATES = Object.freeze({
  PUBLISHED: 'Published',
  FALLBACK: 'FallbackReported',
  CANCELLED: 'Cancelled',
} as const);

/** The Fail state each caught error leads to. */
export const CAUGHT_STATES = Object.freeze({
  [DIAGNOSE_ERRORS.input]: 'InvalidInput',
  [DIAGNOSE_ERRORS.runConflict]: 'RunInProgress',
  [DIAGNOSE_ERRORS.runIdConflict]: 'RunIdConflict',
  [DIAGNOSE_ERRORS.tenantBusy]: 'TenantBusy',
} as const);

/**
 * The states of one diagnosis: the Diagnose task, the `Released` choice on the result's status, the terminal states.
 * `compact` makes the succeeding states answer `{ runId, status }` only (the batch's per-item result, which must stay
 * small: a Map's results add up), otherwise the whole result object is the execution's output. NOTE: state names are
 * unique across a whole state machine, nested ones included, so a second copy takes a `prefix`.
 */
export function buildDiagnosisStates(
  diagnoseFunctionArn: string,
  options: { compact?: boolean; prefix?: string; retriers?: readonly Retrier[] } = {},
): Record<string, AslState> {
  const name = (base: string) => `${options.prefix ?? ''}${base}`;
  const summary = options.compact
    ? { Output: '{% {"runId": $states.input.runId, "status": $states.input.status} %}' }
    : {};
  return {
    [name('Diagnose')]: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke',
      Arguments: { FunctionName: diagnoseFunctionArn, Payload: { ...DIAGNOSE_PAYLOAD } },
      Output: '{% $states.result.Payload %}',
      Retry: (options.retriers ?? DIAGNOSE_RETRIERS).map((retrier) => ({
        ...retrier,
        ErrorEquals: [...retrier.ErrorEquals],
      })),
      Catch: Object.entries(CAUGHT_STATES).map(([error, next]) => ({ ErrorEquals: [error], Next: name(next) })),
      Next: name('Released'),
    },
    [name('Released')]: {
      Type: 'Choice',
      Choices: Object.entries(RELEASED_STATES).map(([status, next]) => ({
        Condition: `{% $states.input.status = "${status}" %}`,
        Next: name(next),
      })),
      Default: name('DiagnosisFailed'),
    },
    [name('Published')]: { Type: 'Succeed', ...summary },
    [name('FallbackReported')]: { Type: 'Succeed', ...summary },
    // NOTE: a cancelled run did what its operator asked: it succeeds, so failure alarms and a batch's tolerated
    // failure count are kept for runs that really failed. Its status says CANCELLED.
    [name('Cancelled')]: { Type: 'Succeed', ...summary },
    [name('DiagnosisFailed')]: { Type: 'Fail', Error: 'DiagnosisFailed', Cause: 'read the run with GET /runs/{runId}' },
    [name('InvalidInput')]: { Type: 'Fail', Error: DIAGNOSE_ERRORS.input },
    [name('RunInProgress')]: { Type: 'Fail', Error: DIAGNOSE_ERRORS.runConflict },
    [name('RunIdConflict')]: { Type: 'Fail', Error: DIAGNOSE_ERRORS.runIdConflict },
    [name('TenantBusy')]: { Type: 'Fail', Error: DIAGNOSE_ERRORS.tenantBusy },
  };
}

/** `DiagnosisWorkflow`: one diagnosis, started with the runId as the execution name (a retry is idempotent). */
export function buildDiagnosisWorkflowDefinition(options: DiagnosisWorkflowOptions): StateMachineDefinition {
  return {
    Comment: 'One diagnosis: invoke Diagnose, then branch on the released status.',
    QueryLanguage: 'JSONata',
    StartAt: 'Diagnose',
    States: buildDiagnosisStates(options.diagnoseFunctionArn),
  };
}

/**
 * The item selector of both Maps: each item is a diagnosis request; one without a runId gets
 * `<batch execution name>-<index>`, so re-running an item of the same batch is idempotent.
 */
const ITEM_SELECTOR =
  '{% $merge([{"runId": $states.context.Execution.Name & "-" & $string($states.context.Map.Item.Index)}, $states.context.Map.Item.Value]) %}';

/**
 * The Distributed Map of a batch: each item runs through the same Diagnose task and `Released` choice as the single
 * workflow, in its own Standard child execution (a diagnosis may take minutes, beyond an Express execution's five).
 * Every item's failure is tolerated (each run's outcome is its own, readable by its runId); the Map's output counts
 * the outcomes.
 */
function diagnosisMap(options: DiagnosisBatchOptions, source: Record<string, unknown>, prefix: string): AslState {
  return {
    Type: 'Map',
    ...source,
    ItemSelector: ITEM_SELECTOR,
    ItemProcessor: {
      ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
      StartAt: `${prefix}Diagnose`,
      States: buildDiagnosisStates(options.diagnoseFunctionArn, {
        compact: true,
        prefix,
        retriers: BATCH_ITEM_RETRIERS,
      }),
    },
    MaxConcurrency: options.maxConcurrency,
    ToleratedFailurePercentage: 100,
    Label: 'Diagnoses',
    Output:
      '{% {"total": $count($states.result), "results": $states.result, "failed": $count($states.result[$not($exists(status))])} %}',
    End: true,
  };
}

/** The prefix of the JSON Lines Map's inner state names (the inline Map's are the single workflow's names). */
export const JSON_LINES_PREFIX = 'JsonLines_';

/**
 * `DiagnosisBatch`: input `{ requests: [ {sessionId, enterpriseId, query, runId?, continueSession?}, … ] }` or
 * `{ source: { bucket, key } }` naming an S3 JSON Lines object of such requests (read by the Map's ItemReader).
 */
export function buildDiagnosisBatchDefinition(options: DiagnosisBatchOptions): StateMachineDefinition {
  if (!Number.isSafeInteger(options.maxConcurrency) || options.maxConcurrency < 1) {
    throw new RangeError('maxConcurrency must be a positive integer');
  }
  return {
    Comment: 'A batch of diagnoses on a Distributed Map; the per-enterprise cap is enforced by leases in the table.',
    QueryLanguage: 'JSONata',
    StartAt: 'Source',
    States: {
      Source: {
        Type: 'Choice',
        Choices: [{ Condition: '{% $exists($states.input.requests) %}', Next: 'DiagnoseRequests' }],
        Default: 'DiagnoseJsonLines',
      },
      DiagnoseRequests: diagnosisMap(options, { Items: '{% $states.input.requests %}' }, ''),
      DiagnoseJsonLines: diagnosisMap(
        options,
        {
          ItemReader: {
            Resource: 'arn:aws:states:::s3:getObject',
            ReaderConfig: { InputType: 'JSONL' },
            Arguments: { Bucket: '{% $states.input.source.bucket %}', Key: '{% $states.input.source.key %}' },
          },
        },
        JSON_LINES_PREFIX,
      ),
    },
  };
}
