/**
 * "A run is never left RUNNING or QUEUED" (issue 19, defect 4 and the abandonment rule), as a property over crash
 * points. Each case starts one run — through POST /diagnoses' service (a QUEUED run bound to its DiagnosisWorkflow
 * execution) or as an item of a DiagnosisBatch (a RUNNING run started by its child execution) — runs the deployed
 * definition through the local interpreter against the real Diagnose handler chain on DynamoDB Local, and kills the
 * first invocation at a chosen point: before it takes the run, right after, at a write in the middle of the rounds,
 * while the judge answers, or at the completion. A killed invocation writes nothing more (its store and lease store
 * die with it, as a process does) and Step Functions sees `Sandbox.Timedout`. Then whatever AWS would do happens:
 * the workflow's retriers, the execution's status-change event, and — after time has passed on a fake clock — the
 * scheduled sweeper. Afterwards the run has ended (PUBLISHED when no invocation died holding it, FAILED RUN_ABANDONED
 * otherwise), holds a process scorecard equal to one recomputed from its stored audit (issue 24: whichever path
 * closed it), and has left its enterprise's open runs; a sweep while a healthy run works closes nothing.
 * NOTE: over 300 lines on purpose: one property over crash points: its generators, the crash injection and the
 * invariant are one argument.
 */
import {
  buildProcessScorecard,
  type DiagnosisResult,
  type DiagnosisWorkflow,
  type RunStore,
  startDiagnosis,
  sweepOpenRuns,
} from '@diagnosis/core';
import {
  createDynamoStores,
  createDynamoTenantLeaseStore,
  type DynamoStores,
  type StoredStep,
  type StoredToolInvocation,
  type TenantLeaseStore,
} from '@diagnosis/core/store';
import { runLocalWorkflow } from '@diagnosis/devkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiagnoseHandler } from '../../../functions/diagnose/diagnose-handler.ts';
import {
  buildDiagnosisBatchDefinition,
  buildDiagnosisWorkflowDefinition,
  executionArnOf,
  queuedStartTimeoutMs,
} from '../../../functions/diagnose/diagnosis-workflows.ts';
import { createWorkflowEventsHandler } from '../../../functions/diagnose/workflow-events.ts';
import { createObservability } from '../../../functions/lambda/observability.ts';
import { createTestTable, localDynamoClient } from '../../support/dynamodb.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { judgeAnswer } from '../../support/judge-answer.ts';
import { lambdaContext } from '../../support/lambda-events.ts';
import { propertyRuns } from '../../support/property-runs.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../../support/scripted-model.ts';

const FUNCTION_ARN = 'arn:aws:lambda:eu-west-1:123456789012:function:Diagnose';
const WORKFLOW_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-test-DiagnosisWorkflow';
const BATCH_ARN = 'arn:aws:states:eu-west-1:123456789012:stateMachine:diagnosis-test-DiagnosisBatch';
const FLUSH_RESERVE_MS = 3_000;
const workflowDefinition = buildDiagnosisWorkflowDefinition({ diagnoseFunctionArn: FUNCTION_ARN });
const batchDefinition = buildDiagnosisBatchDefinition({ diagnoseFunctionArn: FUNCTION_ARN, maxConcurrency: 4 });

const CRASH_POINTS = ['none', 'before-claim', 'after-claim', 'mid-round', 'during-judge', 'during-completion'] as const;
type CrashPoint = (typeof CRASH_POINTS)[number];

const dynamo = localDynamoClient();
let table: Awaited<ReturnType<typeof createTestTable>>;
const clock = { now: Date.parse('2026-11-30T06:10:00Z') };
const now = () => clock.now;
let healthy: DynamoStores;
let leases: TenantLeaseStore;
const quiet = createObservability('Diagnose', () => undefined);

beforeAll(async () => {
  table = await createTestTable(dynamo);
  healthy = createDynamoStores({ client: dynamo, tableName: table.tableName, now });
  leases = createDynamoTenantLeaseStore({ client: dynamo, tableName: table.tableName, now });
});
afterAll(async () => {
  await table?.drop();
  dynamo.destroy();
});

const named = (name: string) => Object.assign(new Error(`${name} (the invocation died)`), { name });

/** An invocation's death: whether it happened, and how to wait for what it had already sent. */
interface Death {
  happened: boolean;
  settled?: () => Promise<void>;
}

/**
 * The store of an invocation that dies at `crash`: from that point on every call rejects, nothing more reaches the
 * table. `writesBeforeDeath` picks the write for `mid-round` (an audit, progress or heartbeat write after the claim).
 * NOTE: what it sent before the death may still be in flight when it dies: a call not awaited (progress, heartbeat)
 * and the audit's puts (the writer writes behind); `death.settled` waits for those to land or fail.
 * On AWS they have long landed when anything else reads the run (the retry and the sweeper come after Lambda's
 * timeout); here, without the wait, a closer reading the audit at once raced them on a loaded machine.
 */
function mortalStore(crash: CrashPoint, writesBeforeDeath: number, death: Death): DynamoStores {
  const store = createDynamoStores({ client: dynamo, tableName: table.tableName, now });
  const sent = new Set<Promise<unknown>>();
  death.settled = async () => {
    await Promise.allSettled([...sent]);
    await store.flush().catch(() => undefined);
  };
  let taken = false;
  let writes = 0;
  const die = (): never => {
    death.happened = true;
    throw named('Sandbox.Timedout');
  };
  const wrapped = { ...store } as Record<string, unknown>;
  for (const [name, method] of Object.entries(store) as [keyof DynamoStores, (...args: unknown[]) => unknown][]) {
    if (typeof method !== 'function') continue;
    wrapped[name] = async (...args: unknown[]) => {
      if (death.happened) die();
      if (crash === 'before-claim' && (name === 'startRun' || name === 'claimQueuedRun') && !taken) die();
      if (crash === 'after-claim' && taken) die();
      if (crash === 'during-completion' && name === 'completeRun') die();
      if (crash === 'during-judge' && name === 'onModelStep' && (args[0] as { role?: string }).role === 'JUDGE') die();
      if (
        crash === 'mid-round' &&
        taken &&
        ['onModelStep', 'onToolInvocation', 'updateProgress', 'heartbeat'].includes(name)
      ) {
        writes += 1;
        if (writes > writesBeforeDeath) die();
      }
      const call = Promise.resolve(method.apply(store, args));
      sent.add(call);
      const result = await call.finally(() => sent.delete(call));
      if (name === 'claimQueuedRun' && result !== null) taken = true;
      if (name === 'startRun' && (result as { started: boolean }).started) taken = true;
      return result;
    };
  }
  return wrapped as unknown as DynamoStores;
}

/** The lease slots as a dying invocation sees them: a dead process releases nothing. */
function mortalLeases(death: { happened: boolean }): TenantLeaseStore {
  return {
    acquire: (request) => (death.happened ? Promise.reject(named('Sandbox.Timedout')) : leases.acquire(request)),
    release: (lease) => (death.happened ? Promise.reject(named('Sandbox.Timedout')) : leases.release(lease)),
    listLeases: (enterpriseId) => leases.listLeases(enterpriseId),
  };
}

/** One tool round, then a Draft citing it; a fresh script per invocation (a retry that runs the run needs its own). */
const agentScript = (sweepWhileRunning: () => Promise<void>) =>
  scriptedModel([
    async () => {
      await sweepWhileRunning();
      return toolRound([{ id: 'call-logs-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]);
    },
    textRound(draftAnswer(supportedDraft(['call-logs-1']))),
  ]);
const judgeScript = () =>
  scriptedModel(
    [
      textRound(
        judgeAnswer({
          analysis: [{ index: 0, verdict: 'SUPPORTED', reason: '日志显示连接池耗尽' }],
          conclusion: { verdict: 'SUPPORTED', reason: '与日志一致' },
          recommendations: [{ index: 0, verdict: 'SUPPORTED', reason: '依据日志' }],
          action_plan: [{ index: 0, verdict: 'SUPPORTED', reason: '依据日志' }],
        }),
      ),
    ],
    'scripted-judge',
  );

interface Case {
  via: 'workflow' | 'batch';
  crash: CrashPoint;
  writesBeforeDeath: number;
}

let counter = 0;
async function runCase({ via, crash, writesBeforeDeath }: Case) {
  counter += 1;
  const name = `crash-${Date.now().toString(36)}-${counter}`;
  const enterpriseId = 'E1001';
  const request = {
    sessionId: 's',
    enterpriseId,
    query: 'E1001 的订单从 14:05 开始失败，为什么？',
    continueSession: false,
  };
  let attempts = 0;
  let died = false;
  const sweptWhileRunning: string[][] = [];
  const invoke = async (_arn: string, payload: unknown): Promise<DiagnosisResult> => {
    const death: Death = { happened: false };
    const first = attempts === 0;
    attempts += 1;
    const store = first ? mortalStore(crash, writesBeforeDeath, death) : healthy;
    const handler = createDiagnoseHandler(
      {
        model: agentScript(async () => {
          // A sweep while this (so far healthy) invocation works must close nothing.
          if (!death.happened) {
            const report = await sweepOpenRuns({ store: healthy, leases, rule: sweepRule, now });
            sweptWhileRunning.push(report.closed);
          }
        }),
        evidence: createFakeEvidence().evidence,
        createStore: () => store,
        flushReserveMs: FLUSH_RESERVE_MS,
        limits: { finalRoundReserveMs: 300 },
        semanticGuard: { mode: 'enforce', model: judgeScript() },
        now,
      },
      {
        ...quiet,
        leases: { store: first ? mortalLeases(death) : leases, maxConcurrentRuns: 4, now },
      },
    );
    try {
      const result = (await handler(payload, lambdaContext(60_000))) as DiagnosisResult;
      if (death.happened) throw named('Sandbox.Timedout');
      return result;
    } catch (error) {
      if (death.happened) {
        died = true;
        await death.settled?.();
        throw named('Sandbox.Timedout');
      }
      throw error;
    }
  };
  const sleep = async (milliseconds: number) => {
    clock.now += milliseconds;
  };

  let runId: string;
  let executionArn: string;
  let failed: boolean;
  let input: unknown;
  if (via === 'workflow') {
    runId = name;
    input = { runId, ...request };
    const workflow: DiagnosisWorkflow = {
      executionArnOf: (id) => executionArnOf(WORKFLOW_ARN, id),
      start: async () => undefined,
      stop: async () => undefined,
    };
    await startDiagnosis({ runId, ...request }, { store: healthy, workflow });
    const execution = await runLocalWorkflow(workflowDefinition, input, {
      executionName: runId,
      stateMachineArn: WORKFLOW_ARN,
      invoke,
      sleep,
    });
    executionArn = executionArnOf(WORKFLOW_ARN, runId);
    failed = execution.status === 'FAILED';
  } else {
    runId = `${name}-0`;
    input = { ...request, runId };
    const execution = await runLocalWorkflow(
      batchDefinition,
      { requests: [request] },
      {
        executionName: name,
        stateMachineArn: BATCH_ARN,
        invoke,
        sleep,
      },
    );
    executionArn = `${executionArnOf(BATCH_ARN, '').slice(0, -1)}/Diagnoses:${runId}`;
    const output = execution.status === 'SUCCEEDED' ? (execution.output as { results: unknown[] }) : { results: [] };
    failed = output.results.some((result) => typeof result === 'object' && result !== null && 'Error' in result);
  }
  if (failed) {
    // Step Functions' status-change event of the execution that failed (a batch item's child execution).
    const stateMachineArn = via === 'workflow' ? WORKFLOW_ARN : `${BATCH_ARN}/Diagnoses`;
    await events(
      {
        source: 'aws.states',
        'detail-type': 'Step Functions Execution Status Change',
        detail: { executionArn, stateMachineArn, name: runId, status: 'FAILED', input: JSON.stringify(input) },
      },
      lambdaContext(5_000),
    );
  }
  // Time passes: past every deadline a run may have, and past a QUEUED run's start timeout; the sweeper runs.
  clock.now += queuedStartTimeoutMs() + 60_000;
  await sweepOpenRuns({ store: healthy, leases, rule: sweepRule, now });
  return { runId, died, sweptWhileRunning, run: await healthy.getRun(runId) };
}

const sweepRule = { flushReserveMs: FLUSH_RESERVE_MS, queuedTimeoutMs: queuedStartTimeoutMs() };
let events: ReturnType<typeof createWorkflowEventsHandler>;

describe('a run and a crashed invocation', () => {
  beforeAll(() => {
    events = createWorkflowEventsHandler(
      healthy as Pick<RunStore, 'getRun' | 'requestCancel' | 'claimQueuedRun' | 'completeRun' | 'listRunRecords'>,
      {
        ...createObservability('OnWorkflowStopped', () => undefined),
        workflowArn: WORKFLOW_ARN,
        batchArn: BATCH_ARN,
        flushReserveMs: FLUSH_RESERVE_MS,
        now,
      },
    );
  });

  // NOTE: every (path, crash point) pair runs as an example, whatever the case count; the sample adds random cases.
  const runs = propertyRuns(200, 12, 3702);
  const examples = (['workflow', 'batch'] as const).flatMap((via, v) =>
    CRASH_POINTS.map((crash, c) => [{ via, crash, writesBeforeDeath: (v * CRASH_POINTS.length + c) % 9 }] as const),
  );
  it(`is never left RUNNING or QUEUED, whichever point the invocation died at (${runs.numRuns} runs and ${examples.length} examples)`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          via: fc.constantFrom('workflow' as const, 'batch' as const),
          crash: fc.constantFrom(...CRASH_POINTS),
          writesBeforeDeath: fc.integer({ min: 0, max: 8 }),
        }),
        async (testCase) => {
          const { runId, died, sweptWhileRunning, run } = await runCase(testCase);
          // Ended, whatever happened.
          expect(run?.status).toMatch(/^(SUCCEEDED|FAILED)$/);
          // A sweep while a healthy invocation worked closed nothing.
          expect(sweptWhileRunning.flat()).toEqual([]);
          if (died && testCase.crash !== 'before-claim') {
            // The dead invocation held it: nobody ran it twice; it was closed as abandoned.
            expect(run).toMatchObject({ status: 'FAILED', errorCode: 'RUN_ABANDONED' });
          } else {
            expect(run).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
          }
          // Whoever closed it stored its process scorecard, and it is the one recomputed from the stored audit.
          const { records } = await healthy.listRunRecords(runId, { limit: 100 });
          const steps = records.filter((record): record is StoredStep => record.entity === 'agent_step');
          const tools = records.filter((record): record is StoredToolInvocation => record.entity === 'tool_invocation');
          expect(run?.processScorecard).not.toBeNull();
          expect(run?.processScorecard).toEqual(run === null ? null : buildProcessScorecard(run, steps, tools));
          // It left its enterprise's open runs, so it holds no place under the admission bound.
          const open = await healthy.listOpenRuns();
          expect(open.flatMap((entry) => entry.runIds)).not.toContain(runId);
        },
      ),
      { ...runs, examples: [...examples] },
    );
  }, 600_000);
});
