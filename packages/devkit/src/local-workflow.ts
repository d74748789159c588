/**
 * A small local interpreter of the Amazon States Language subset our state machines use (JSONata only): Task states
 * on `arn:aws:states:::lambda:invoke` with Retry and Catch, Choice, Succeed, Fail, and Map (inline `Items` or an
 * `ItemReader` the caller reads) with `ItemSelector`, `MaxConcurrency` and a nested `ItemProcessor`. It runs the very
 * definitions `sst.config.ts` deploys against the real Diagnose handler, so a test or a local batch sees which state
 * the workflow would take for a given output or error name. It is not Step Functions: no history, no timeouts, no
 * JSONPath, and whatever state type it does not know is refused loudly.
 */

import type { AslState, Retrier, StateMachineDefinition } from '@diagnosis/functions/workflows';
import jsonata from 'jsonata';

export interface LocalWorkflowOptions {
  /** The Lambda invocation of a Task: resolves with the function's result or rejects with its error (its `name`). */
  invoke(functionArn: string, payload: unknown): Promise<unknown>;
  executionName: string;
  /**
   * The state machine's ARN, from which the execution's ARN (`$states.context.Execution.Id`) is made as Step Functions
   * makes it (default: a local DiagnosisWorkflow). A Map's child executions get `…:execution:<machine>/<label>:<name>`.
   */
  stateMachineArn?: string;
  /** The execution's start, for the context object's `Execution.StartTime` (ISO 8601; default: now). */
  startTime?: Date;
  /** Waits before a retry (default: real time), given the error being retried. Tests wait for an event instead. */
  sleep?: (milliseconds: number, error: unknown) => Promise<void>;
  /** For `JitterStrategy: FULL` (default `Math.random`). */
  random?: () => number;
  /** Overrides every Map's `MaxConcurrency` (the local `--concurrency`). */
  maxConcurrency?: number;
  /** Reads a Map's `ItemReader` (its evaluated `Arguments`, e.g. `{ Bucket, Key }`) into items. */
  readItems?: (reader: { resource: string; arguments: unknown; readerConfig: unknown }) => Promise<unknown[]>;
  /** Called on every state entered, with the names of enclosing states for nested ones. */
  onState?: (event: { path: string[]; state: string; type: string }) => void;
}

export type LocalExecution =
  | { status: 'SUCCEEDED'; output: unknown; states: string[] }
  | { status: 'FAILED'; error: string; cause: string | undefined; states: string[] };

interface StatesVariable {
  input: unknown;
  result?: unknown;
  errorOutput?: unknown;
  context: Record<string, unknown>;
}

/** Thrown for a state failure that is not a task's own error (`States.*`). */
class StatesError extends Error {
  override readonly name: string;
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

const EXPRESSION = /^\{%([\s\S]*)%\}$/;
/** The state machine a local execution belongs to when the caller names none. */
const LOCAL_STATE_MACHINE_ARN = 'arn:aws:states:local:000000000000:stateMachine:DiagnosisWorkflow';

/** Evaluates a JSONata template: a `{% … %}` string is an expression; objects and arrays are walked; the rest is kept. */
export async function evaluateTemplate(template: unknown, states: StatesVariable): Promise<unknown> {
  if (typeof template === 'string') {
    const match = EXPRESSION.exec(template);
    if (match === null) return template;
    const value: unknown = await jsonata(match[1] ?? '').evaluate({}, { states });
    // NOTE: Step Functions fails the state when an expression yields nothing; so does this interpreter.
    if (value === undefined) throw new StatesError('States.QueryEvaluationError', `${template} evaluated to nothing`);
    return structuredClone(value);
  }
  if (Array.isArray(template)) return Promise.all(template.map((item) => evaluateTemplate(item, states)));
  if (template !== null && typeof template === 'object') {
    const entries = await Promise.all(
      Object.entries(template).map(async ([key, value]) => [key, await evaluateTemplate(value, states)] as const),
    );
    return Object.fromEntries(entries);
  }
  return template;
}

const errorNameOf = (error: unknown) =>
  typeof (error as { name?: unknown })?.name === 'string' ? (error as { name: string }).name : 'Error';

function matches(errorEquals: readonly string[], name: string): boolean {
  if (errorEquals.includes(name) || errorEquals.includes('States.ALL')) return true;
  return errorEquals.includes('States.TaskFailed') && name !== 'States.Timeout';
}

/** Runs a state machine (or a Map's ItemProcessor) from its `StartAt` to a terminal state. */
export async function runLocalWorkflow(
  definition: Pick<StateMachineDefinition, 'StartAt' | 'States'>,
  input: unknown,
  options: LocalWorkflowOptions,
  path: string[] = [],
  context: Record<string, unknown> = {},
): Promise<LocalExecution> {
  const visited: string[] = [];
  const machine = options.stateMachineArn ?? LOCAL_STATE_MACHINE_ARN;
  const fullContext = {
    ...context,
    Execution: {
      Name: options.executionName,
      Id: `${machine.replace(':stateMachine:', ':execution:')}:${options.executionName}`,
      Input: input,
      StartTime: (options.startTime ?? new Date()).toISOString(),
    },
    StateMachine: { Id: machine },
  };
  let name = definition.StartAt;
  let current = input;
  for (;;) {
    const state = definition.States[name];
    if (state === undefined) throw new Error(`no state named ${name}`);
    visited.push(name);
    options.onState?.({ path, state: name, type: state.Type });
    const step = await runState(state, name, current, options, path, fullContext);
    if (step.kind === 'fail') return { status: 'FAILED', error: step.error, cause: step.cause, states: visited };
    if (step.kind === 'end') return { status: 'SUCCEEDED', output: step.output, states: visited };
    name = step.next;
    current = step.output;
  }
}

type Step =
  | { kind: 'next'; next: string; output: unknown }
  | { kind: 'end'; output: unknown }
  | { kind: 'fail'; error: string; cause: string | undefined };

async function runState(
  state: AslState,
  name: string,
  input: unknown,
  options: LocalWorkflowOptions,
  path: string[],
  context: Record<string, unknown>,
): Promise<Step> {
  const states: StatesVariable = { input, context };
  const proceed = async (result: unknown): Promise<Step> => {
    const output = state.Output === undefined ? result : await evaluateTemplate(state.Output, { ...states, result });
    if (state.End === true) return { kind: 'end', output };
    if (typeof state.Next !== 'string') throw new Error(`state ${name} has neither Next nor End`);
    return { kind: 'next', next: state.Next, output };
  };
  switch (state.Type) {
    case 'Succeed':
      return {
        kind: 'end',
        output: state.Output === undefined ? input : await evaluateTemplate(state.Output, states),
      };
    case 'Fail':
      return {
        kind: 'fail',
        error: String(state.Error ?? 'States.Fail'),
        cause: state.Cause === undefined ? undefined : String(state.Cause),
      };
    case 'Choice': {
      for (const choice of (state.Choices ?? []) as { Condition: string; Next: string }[]) {
        if ((await evaluateTemplate(choice.Condition, states)) === true)
          return { kind: 'next', next: choice.Next, output: input };
      }
      if (typeof state.Default === 'string') return { kind: 'next', next: state.Default, output: input };
      return { kind: 'fail', error: 'States.NoChoiceMatched', cause: `no choice of ${name} matched` };
    }
    case 'Task':
      return runTask(state, name, states, options, proceed);
    case 'Map':
      return proceed(await runMap(state, name, states, options, path, context));
    default:
      throw new Error(`the local interpreter does not run ${state.Type} states (${name})`);
  }
}

async function runTask(
  state: AslState,
  name: string,
  states: StatesVariable,
  options: LocalWorkflowOptions,
  proceed: (result: unknown) => Promise<Step>,
): Promise<Step> {
  if (state.Resource !== 'arn:aws:states:::lambda:invoke') {
    throw new Error(`the local interpreter only invokes Lambda functions (${name})`);
  }
  const retriers = (state.Retry ?? []) as Retrier[];
  const attempts = new Map<Retrier, number>();
  const sleep = options.sleep ?? ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)));
  for (;;) {
    let error: unknown;
    try {
      const { FunctionName, Payload } = (await evaluateTemplate(state.Arguments, states)) as {
        FunctionName: string;
        Payload: unknown;
      };
      const payload = await options.invoke(FunctionName, structuredClone(Payload));
      return await proceed({ Payload: structuredClone(payload), StatusCode: 200 });
    } catch (thrown) {
      error = thrown;
    }
    const errorName = errorNameOf(error);
    // NOTE: the first retrier that matches decides; once its attempts are spent, the Catchers are next.
    const retrier = retriers.find((candidate) => matches(candidate.ErrorEquals, errorName));
    const used = retrier === undefined ? 0 : (attempts.get(retrier) ?? 0);
    if (retrier !== undefined && used < (retrier.MaxAttempts ?? 3)) {
      attempts.set(retrier, used + 1);
      const interval = (retrier.IntervalSeconds ?? 1) * (retrier.BackoffRate ?? 2) ** used;
      const capped = Math.min(interval, retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY);
      const delay = retrier.JitterStrategy === 'FULL' ? capped * (options.random ?? Math.random)() : capped;
      await sleep(Math.round(delay * 1000), error);
      continue;
    }
    const cause = JSON.stringify({ errorType: errorName, errorMessage: (error as Error)?.message ?? '' });
    const catcher = ((state.Catch ?? []) as { ErrorEquals: string[]; Next: string; Output?: unknown }[]).find(
      (candidate) => matches(candidate.ErrorEquals, errorName),
    );
    if (catcher === undefined) return { kind: 'fail', error: errorName, cause };
    const errorOutput = { Error: errorName, Cause: cause };
    const output =
      catcher.Output === undefined ? errorOutput : await evaluateTemplate(catcher.Output, { ...states, errorOutput });
    return { kind: 'next', next: catcher.Next, output };
  }
}

async function runMap(
  state: AslState,
  name: string,
  states: StatesVariable,
  options: LocalWorkflowOptions,
  path: string[],
  context: Record<string, unknown>,
): Promise<unknown[]> {
  let items: unknown;
  if (state.ItemReader !== undefined) {
    const reader = state.ItemReader as { Resource: string; Arguments?: unknown; ReaderConfig?: unknown };
    if (options.readItems === undefined) throw new Error(`no local reader for the ItemReader of ${name}`);
    items = await options.readItems({
      resource: reader.Resource,
      arguments: await evaluateTemplate(reader.Arguments ?? {}, states),
      readerConfig: reader.ReaderConfig,
    });
  } else {
    items = await evaluateTemplate(state.Items ?? '{% $states.input %}', states);
  }
  if (!Array.isArray(items))
    throw new StatesError('States.QueryEvaluationError', `the items of ${name} are not an array`);
  const processor = state.ItemProcessor as Pick<StateMachineDefinition, 'StartAt' | 'States'>;
  const limit = options.maxConcurrency ?? (Number(state.MaxConcurrency) || items.length || 1);
  const results: unknown[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      const itemContext = { ...context, Map: { Item: { Index: index, Value: items[index] } } };
      const selected =
        state.ItemSelector === undefined
          ? items[index]
          : await evaluateTemplate(state.ItemSelector, { ...states, context: itemContext });
      const machine = options.stateMachineArn ?? LOCAL_STATE_MACHINE_ARN;
      const execution = await runLocalWorkflow(
        processor,
        selected,
        {
          ...options,
          // NOTE: a child execution's ARN names the batch machine and its Map Run, as Step Functions names it.
          stateMachineArn: `${machine}/${String(state.Label ?? name)}`,
          executionName: `${options.executionName}-${index}`,
        },
        [...path, name],
        {},
      );
      results[index] =
        execution.status === 'SUCCEEDED' ? execution.output : { Error: execution.error, Cause: execution.cause };
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, Math.max(items.length, 1)) }, worker));
  return results;
}
