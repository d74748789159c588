/**
 * Cloud-OpsBench through the eval: each case imported just before its run (its world written to the eval's scratch
 * folder and removed after), run as a scenario of the existing eval (`runEval`, `runScenario`: the real provider,
 * Diagnose function, harness, guards and release against DynamoDB Local), and measured for what the benchmark adds:
 * offline, the replay of its golden trajectory with the expert evidence recall and the logs adapter's time on the
 * case's files; live, the benchmark's scores of the conclusion (benchmark-labels.ts).
 * NOTE: over 300 lines on purpose: one run of the benchmark: each case imported, run as a scenario and measured for
 * what the benchmark adds, the steps sharing the case's scratch folder and figures.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createMaskingSession, DEFAULT_RUN_LIMITS, DEVELOPMENT_MASKING_SECRET } from '@diagnosis/core';
import { createLocalLogsAdapter } from '@diagnosis/core/adapters';
import type { Price } from '../price.ts';
import { type EvalReport, runEval } from '../run-eval.ts';
import { emptyRun, runScenario, type ScenarioContext, type ScenarioRun } from '../run-scenario.ts';
import type { Scenario } from '../scenario.ts';
import { type LabelScore, scoreLabels } from './benchmark-labels.ts';
import { buildCaseQuestion } from './case-question.ts';
import { type EvidenceRecall, measureEvidenceRecall, type ServiceEvidence } from './evidence-recall.ts';
import { expertErrorLines, expertMessages } from './golden-trajectory.ts';
import { type ImportedCase, importCase, timeZoneOf, writeCaseLogs } from './import-case.ts';
import { parseTable } from './kubectl-text.ts';
import {
  type CaseFiles,
  type CaseFilter,
  type CaseRef,
  type CaseSkip,
  listCases,
  loadCaseFiles,
  systemLabels,
} from './opsbench-dataset.ts';
import { createReplayModel, type GroundTruth, observationMessages, parseObservation } from './replay-model.ts';
import { buildReplayPlan, type PlannedCall, type ReplayPlan } from './replay-plan.ts';

/** The enterprise every imported case runs as (the logs' records carry it; the adapter filters by it). */
const OPSBENCH_ENTERPRISE = 'OPSBENCH';

type OpsbenchCaseStatus = 'REPLAYED' | 'RAN' | 'IMPORTED' | 'SKIPPED' | 'ERROR';

export interface OpsbenchCase {
  case: string;
  system: string;
  category: string;
  status: OpsbenchCaseStatus;
  /** Why the case was not imported (SKIPPED), or why an imported case did not run (IMPORTED: no golden trajectory). */
  reason: string | null;
  truth: GroundTruth | null;
  import: {
    ms: number;
    streams: number;
    records: number;
    kubernetesRecords: number;
    bytes: number;
    untimedEvents: number;
    repeatedPrevious: number;
  } | null;
  replay: { calls: number; skipped: Record<string, number>; repeated: number; overBudget: number } | null;
  release: { status: string; cause: string | null } | null;
  evidenceRecall: (EvidenceRecall & { messageRecall: number | null; signatureRecall: number | null }) | null;
  /** The logs adapter's time over the replay's calls on the case's files (milliseconds). */
  adapterMs: number | null;
  tokens: { input: number; cached: number; output: number; total: number; measured: boolean } | null;
  costUsd: number;
  live: LabelScore | null;
  runId: string | null;
  notes: string[];
}

export interface OpsbenchOptions {
  datasetDir: string;
  filter: CaseFilter;
  mode: 'offline' | 'live';
  concurrency: number;
  price: Price;
  liveSettings: Record<string, string>;
  totalTokenCap: number;
  runTimeoutMs: number;
  dynamoEndpoint?: string | undefined;
  onCase?: (result: OpsbenchCase, done: number, total: number) => void;
}

export interface OpsbenchRun {
  cases: OpsbenchCase[];
  eval: EvalReport;
}

const ratio = (count: { expert: number; found: number }) => (count.expert === 0 ? null : count.found / count.expert);

function baseCase(ref: CaseRef): OpsbenchCase {
  return {
    case: ref.key,
    system: ref.system,
    category: ref.category,
    status: 'ERROR',
    reason: null,
    truth: null,
    import: null,
    replay: null,
    release: null,
    evidenceRecall: null,
    adapterMs: null,
    tokens: null,
    costUsd: 0,
    live: null,
    runId: null,
    notes: [],
  };
}

function placeholder(ref: CaseRef, index: number): Scenario {
  return {
    id: `opsbench-${index}`,
    title: ref.key,
    category: 'logs',
    enterpriseId: OPSBENCH_ENTERPRISE,
    now: '2026-01-01T00:00:00Z',
    query: ref.key,
    expected: { outcome: 'DIAGNOSIS', rootCause: { anyOf: [[ref.key]] }, mustNotClaim: [], requiredEvidence: [] },
    probes: [],
    dir: ref.dir,
    worldDir: undefined,
    scripted: undefined,
    generatedLogs: [],
    recording: undefined,
  };
}

/** Imports, runs and measures the dataset's cases the filter keeps (see the module's note). */
export async function runCloudOpsbench(options: OpsbenchOptions): Promise<OpsbenchRun> {
  const refs = listCases(options.datasetDir, options.filter);
  const labels = new Map<string, string[]>();
  const labelsOf = (system: string) => {
    if (!labels.has(system)) labels.set(system, systemLabels(options.datasetDir, system));
    return labels.get(system) ?? [];
  };
  const results = new Map<string, OpsbenchCase>();
  const scenarios = refs.map(placeholder);
  const byScenario = new Map(scenarios.map((scenario, index) => [scenario.id, refs[index] as CaseRef]));
  let done = 0;
  const runOne = async (scenario: Scenario, context: ScenarioContext): Promise<ScenarioRun> => {
    const ref = byScenario.get(scenario.id) as CaseRef;
    const result = baseCase(ref);
    const worldDir = join(context.scratchDir, 'opsbench', scenario.id);
    try {
      return await runCase(ref, scenario, context, worldDir, labelsOf(ref.system), options.mode, result);
    } catch (error) {
      result.status = 'ERROR';
      result.reason = `${(error as { name?: string } | null)?.name ?? 'Error'}`;
      return { ...emptyRun(scenario), error: result.reason };
    } finally {
      rmSync(worldDir, { recursive: true, force: true });
      results.set(ref.key, result);
      done += 1;
      options.onCase?.(result, done, refs.length);
    }
  };
  const report = await runEval(scenarios, {
    mode: options.mode,
    concurrency: options.concurrency,
    price: options.price,
    mysqlAdminUrl: undefined,
    liveSettings: options.liveSettings,
    totalTokenCap: options.totalTokenCap,
    runTimeoutMs: options.runTimeoutMs,
    dynamoEndpoint: options.dynamoEndpoint,
    runScenario: runOne,
  });
  // NOTE: a case the live token cap left out never reached `runOne`.
  const cases = refs.map((ref, index) => {
    const known = results.get(ref.key);
    if (known !== undefined) return known;
    const skipped = baseCase(ref);
    skipped.status = 'SKIPPED';
    skipped.reason = report.scenarios[index]?.notes[0] ?? 'not run';
    return skipped;
  });
  return { cases, eval: report };
}

async function runCase(
  ref: CaseRef,
  scenario: Scenario,
  context: ScenarioContext,
  worldDir: string,
  labels: readonly string[],
  mode: 'offline' | 'live',
  result: OpsbenchCase,
): Promise<ScenarioRun> {
  const skip = (why: CaseSkip) => {
    result.status = 'SKIPPED';
    result.reason = `${why.code}: ${why.detail}`;
    return { ...emptyRun(scenario), status: 'SKIPPED' as const, notes: [result.reason] };
  };
  const started = performance.now();
  const loaded = loadCaseFiles(ref);
  if (!loaded.ok) return skip(loaded.skip);
  const { files } = loaded;
  const truth: GroundTruth = {
    faultTaxonomy: files.metadata.result.fault_taxonomy,
    faultObject: files.metadata.result.fault_object,
    rootCause: files.metadata.result.root_cause,
  };
  result.truth = truth;
  const imported = importCase(files);
  if (!imported.ok) return skip({ code: 'NO_TIMESTAMPS', detail: imported.detail });
  const bytes = writeCaseLogs(imported.imported, join(worldDir, 'logs'), OPSBENCH_ENTERPRISE);
  const { stats } = imported.imported;
  result.import = {
    ms: performance.now() - started,
    streams: stats.streams,
    records: stats.records,
    kubernetesRecords: stats.kubernetesRecords,
    bytes,
    untimedEvents: stats.untimedEvents,
    repeatedPrevious: stats.repeatedPrevious,
  };
  result.notes.push(...files.pathNotes);
  const streams = new Set(imported.imported.streams.keys());
  const plan =
    files.paths.length === 0
      ? undefined
      : buildReplayPlan(files.paths, {
          caseKey: ref.key,
          window: imported.imported.window,
          streams,
          maxCalls: DEFAULT_RUN_LIMITS.maxToolCalls,
        });
  if (plan !== undefined) {
    result.replay = {
      calls: plan.calls.length,
      skipped: plan.skipped,
      repeated: plan.repeated,
      overBudget: plan.overBudget,
    };
  }
  if (mode === 'offline' && (plan === undefined || plan.calls.length === 0)) {
    result.status = 'IMPORTED';
    result.reason =
      plan === undefined ? 'no golden trajectory: imported, not replayed' : 'no expert step maps onto our tools';
    return { ...emptyRun(scenario), status: 'SKIPPED', notes: [result.reason] };
  }
  const replay =
    mode === 'offline' && plan !== undefined ? createReplayModel(plan, truth, context.tokenCounter) : undefined;
  const objectName = truth.faultObject.slice(truth.faultObject.indexOf('/') + 1);
  const full: Scenario = {
    ...scenario,
    title: ref.key,
    now: imported.imported.window.end,
    timeZone: timeZoneOf(imported.imported.zone),
    query: buildCaseQuestion({
      query: files.metadata.query,
      namespace: files.metadata.namespace,
      alerts: files.alerts,
      window: imported.imported.window,
      streams: [...streams],
      labels,
    }),
    expected: {
      outcome: 'DIAGNOSIS',
      rootCause: { anyOf: [[objectName, truth.rootCause]] },
      mustNotClaim: [],
      requiredEvidence: ['query_logs'],
    },
    worldDir,
    replayModel: replay,
  };
  const run = await runScenario(full, context);
  result.runId = run.runId;
  result.notes.push(...run.notes);
  if (run.status !== 'RAN' || run.observation === null) {
    result.status = 'ERROR';
    result.reason = run.error ?? run.status;
    return run;
  }
  result.status = mode === 'offline' ? 'REPLAYED' : 'RAN';
  result.release = { status: run.observation.status, cause: run.observation.cause };
  result.tokens =
    run.measured === null
      ? {
          input: run.usage.inputTokens,
          cached: run.usage.cachedInputTokens,
          output: run.usage.outputTokens,
          total: run.usage.totalTokens,
          measured: false,
        }
      : {
          input: run.measured.inputTokens,
          cached: run.measured.cachedInputTokens,
          output: run.measured.outputTokens,
          total: run.measured.totalTokens,
          measured: true,
        };
  result.costUsd = run.costUsd;
  if (replay !== undefined && plan !== undefined && run.runId !== null) {
    const measured = await measureReplay(
      files,
      imported.imported,
      plan,
      replay.received,
      join(worldDir, 'logs'),
      run.runId,
    );
    result.evidenceRecall = {
      ...measured.recall,
      messageRecall: ratio(measured.recall.messages),
      signatureRecall: ratio(measured.recall.signatures),
    };
    result.adapterMs = measured.adapterMs;
  }
  if (mode === 'live') {
    result.live = scoreLabels(
      run.observation.conclusion,
      labelCandidates(files, imported.imported, truth, labels),
      truth,
    );
  }
  return run;
}

function labelCandidates(files: CaseFiles, imported: ImportedCase, truth: GroundTruth, labels: readonly string[]) {
  const services = [...imported.streams.keys()].filter((name) => name !== 'kubernetes' && !name.includes('.'));
  const nodes = Object.entries(files.states)
    .filter(([command]) => /^kubectl get nodes -n \S+$/.test(command))
    .flatMap(([, text]) => parseTable(text).map((row) => row.NAME ?? ''))
    .filter((name) => name !== '');
  const objects = new Set([
    ...services.map((name) => `app/${name}`),
    ...nodes.map((name) => `node/${name}`),
    `namespace/${imported.namespace}`,
    // NOTE: the truth is a candidate whatever the case's data names, so a right answer can always be read back.
    truth.faultObject,
  ]);
  return { objects: [...objects], labels: [...new Set([...labels, truth.rootCause])] };
}

/**
 * The replay's measurements besides the run's own: for each service an expert read error logs of, its expert
 * messages against what the agent received, with the adapter's own answer to each call (timed) for the loss places.
 */
async function measureReplay(
  files: CaseFiles,
  imported: ImportedCase,
  plan: ReplayPlan,
  received: ReadonlyMap<string, string>,
  logsDir: string,
  runId: string,
): Promise<{ recall: EvidenceRecall; adapterMs: number }> {
  const adapter = createLocalLogsAdapter({ directory: logsDir });
  const expertLines = new Map<string, string[]>();
  for (const step of files.paths.flat()) {
    if (step.tool !== 'GetErrorLogs') continue;
    const service = step.args.service_name ?? '';
    expertLines.set(service, [...(expertLines.get(service) ?? []), ...expertErrorLines(step.output)]);
  }
  let adapterMs = 0;
  const answer = async (call: PlannedCall) => {
    const started = performance.now();
    const outcome = await adapter.execute({
      runId,
      sessionId: 'opsbench-recall',
      enterpriseId: OPSBENCH_ENTERPRISE,
      toolCallId: call.toolCallId,
      toolName: 'query_logs',
      input: call.input,
      signal: new AbortController().signal,
    });
    adapterMs += performance.now() - started;
    return outcome.status === 'OK' ? outcome.data.lines.map((line) => line.message) : [];
  };
  const services = new Map<string, ServiceEvidence>();
  for (const [service, lines] of expertLines) {
    const calls = [];
    for (const call of plan.calls.filter((planned) => planned.input.service === service)) {
      const content = received.get(call.toolCallId);
      calls.push({
        startMs: Date.parse(call.input.start_time),
        endMs: Date.parse(call.input.end_time),
        level: call.input.level,
        returned: await answer(call),
        shown: content === undefined ? [] : observationMessages(parseObservation(content)),
      });
    }
    services.set(service, {
      expert: expertMessages(lines),
      records: (imported.streams.get(service) ?? []).map((event) => ({
        time: event.time,
        level: event.level,
        message: event.message,
      })),
      calls,
    });
  }
  // The adapter's time covers every call of the replay, the Kubernetes stream's included.
  for (const call of plan.calls.filter((planned) => !expertLines.has(planned.input.service))) await answer(call);
  const masking = createMaskingSession({ mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET }, runId);
  const recall = measureEvidenceRecall(services, files.metadata.result.root_cause, (text) => masking.maskText(text));
  return { recall, adapterMs };
}
