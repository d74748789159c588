import type { DiagnosisDraft } from '../draft/diagnosis-draft.ts';
import { MAX_REFUSAL_CODES, PROCESS_SCORECARD_VERSION, type ProcessScorecard } from '../run/process-scores.ts';
import type { StoredRun, StoredStep, StoredToolInvocation } from '../store/run-store.ts';
import { canonicalInput } from '../tools/canonical-input.ts';
import { envelopeInput } from './describe-tool-call.ts';

/** What the scorecard reads of the run item: its end state, its Draft, its progress and its limits. */
export type ScoredRun = Pick<StoredRun, 'status' | 'draft' | 'publishedResult' | 'progress' | 'limits' | 'deadlineAt'>;

/**
 * The process scorecard of a run, from its audit alone: the run item's end state, its steps and its tool
 * invocations, as the store holds them (no model call, no clock, no other source). Each metric is defined here once
 * (docs/learning-from-runs.md gives the formulas); the service computes it when the run completes and stores it on the
 * run item, and anyone can recompute it from the stored records and get the same figures. Pure; never throws for a
 * record it is given.
 */
export function buildProcessScorecard(
  run: ScoredRun,
  steps: readonly StoredStep[],
  tools: readonly StoredToolInvocation[],
): ProcessScorecard {
  const agentSteps = steps.filter((step) => step.role !== 'JUDGE');
  const judgeSteps = steps.filter((step) => step.role === 'JUDGE');
  const ordered = [...tools].sort(byAuditOrder);
  const executed = ordered.filter((tool) => tool.disposition === 'EXECUTED');
  const refused = ordered.filter((tool) => tool.disposition === 'REJECTED');
  const evaluations = new Map((run.progress?.checks ?? []).map((check) => [check.toolCallId, check.evaluation]));
  const noGain = executed.filter((tool) => evaluations.get(tool.toolCallId) === 'NO_GAIN');
  const unproductive = executed.filter(
    (tool) => tool.status === 'ERROR' || tool.empty || evaluations.get(tool.toolCallId) === 'NO_GAIN',
  );
  const tokens = {
    input: sum(steps, (step) => step.inputTokens),
    output: sum(steps, (step) => step.outputTokens),
    reasoning: sum(steps, (step) => step.reasoningTokens ?? 0),
    cachedInput: sum(steps, (step) => step.cachedInputTokens ?? 0),
    total: 0,
    estimatedRounds: steps.filter((step) => step.usageEstimated).length,
  };
  tokens.total = tokens.input + tokens.output;
  const limits = run.limits;
  return {
    version: PROCESS_SCORECARD_VERSION,
    rounds: agentSteps.length,
    judgeCalls: judgeSteps.length,
    toolCalls: {
      total: ordered.length,
      executed: executed.length,
      evidence: executed.filter((tool) => tool.status === 'READY' && !tool.empty).length,
      empty: executed.filter((tool) => tool.status === 'READY' && tool.empty).length,
      error: executed.filter((tool) => tool.status === 'ERROR').length,
      refused: refused.length,
      refusedByCode: countCodes(refused),
      stopped: ordered.filter((tool) => tool.disposition === 'STOPPED').length,
      redundant: redundantCalls(ordered),
      noGain: noGain.length,
      unproductive: unproductive.length,
    },
    answeredWithoutTools: run.draft !== null && executed.length === 0,
    guards: guardRemovals(run),
    citationsPerFinding: citationsPerFinding(run.publishedResult?.draft ?? run.draft),
    tokens,
    budget: {
      modelCalls: { used: agentSteps.length, allowed: limits?.maxModelCalls ?? null },
      toolCalls: { used: executed.length, allowed: limits?.maxToolCalls ?? null },
      tokens: {
        used: sum(agentSteps, (step) => step.inputTokens + step.outputTokens),
        allowed: limits?.maxTotalTokens ?? null,
      },
      refusedCalls: { used: refused.length, allowed: limits?.maxRejectedToolCalls ?? null },
    },
    timeMs: timeSpent(run, agentSteps, judgeSteps, executed, [...steps, ...ordered]),
  };
}

/**
 * Calls (any disposition) whose tool and canonical business input equal those of an earlier EXECUTED call: what
 * the harness's duplicate check refuses, and what a model asks again after collection stopped. A call whose input
 * was cut in the audit (`inputTruncated`) compares by its stored text.
 */
function redundantCalls(ordered: readonly StoredToolInvocation[]): number {
  const executedInputs = new Set<string>();
  let redundant = 0;
  for (const tool of ordered) {
    const key = tool.inputTruncated ? `${tool.toolName}:#truncated:${String(tool.input)}` : canonicalOf(tool);
    if (executedInputs.has(key)) redundant += 1;
    else if (tool.disposition === 'EXECUTED') executedInputs.add(key);
  }
  return redundant;
}

/** The call's canonical input, exactly as the harness's duplicate check forms it (tool name and business input). */
export function canonicalOf(tool: Pick<StoredToolInvocation, 'toolName' | 'input'>): string {
  return canonicalInput(tool.toolName, envelopeInput(tool.input));
}

function countCodes(refused: readonly StoredToolInvocation[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const tool of refused) {
    const code = typeof tool.code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(tool.code) ? tool.code : 'UNKNOWN';
    if (codes[code] === undefined && Object.keys(codes).length >= MAX_REFUSAL_CODES) continue;
    codes[code] = (codes[code] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(codes).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The share of the agent's Draft the guards kept out: for a published run, the items its published result lacks; for
 * a run with a Draft that published nothing (a guard refused it), all of them.
 */
function guardRemovals(run: ScoredRun): ProcessScorecard['guards'] {
  if (run.draft === null) return { draftItems: null, removedItems: null, removedShare: null };
  const draftItems = itemsOf(run.draft);
  const published = run.status === 'SUCCEEDED' && run.publishedResult !== null ? itemsOf(run.publishedResult.draft) : 0;
  const removedItems = Math.max(0, draftItems - published);
  return { draftItems, removedItems, removedShare: draftItems === 0 ? null : removedItems / draftItems };
}

function itemsOf(draft: DiagnosisDraft): number {
  return draft.analysis.length + (draft.conclusion === null ? 0 : 1);
}

function citationsPerFinding(draft: DiagnosisDraft | null): number | null {
  const findings = (draft?.analysis ?? []).filter((item) => item.type === 'FINDING');
  if (findings.length === 0) return null;
  return sum(findings, (item) => item.tool_call_ids.length) / findings.length;
}

function timeSpent(
  run: ScoredRun,
  agentSteps: readonly StoredStep[],
  judgeSteps: readonly StoredStep[],
  executed: readonly StoredToolInvocation[],
  all: readonly { startedAt: string; endedAt: string }[],
): ProcessScorecard['timeMs'] {
  const starts = all.map((record) => Date.parse(record.startedAt)).filter(Number.isFinite);
  const ends = all.map((record) => Date.parse(record.endedAt)).filter(Number.isFinite);
  const lastEnd = ends.length === 0 ? null : Math.max(...ends);
  const deadline = run.deadlineAt === null ? Number.NaN : Date.parse(run.deadlineAt);
  return {
    model: sum(agentSteps, duration),
    judge: sum(judgeSteps, duration),
    tools: sum(executed, duration),
    span: starts.length === 0 || lastEnd === null ? 0 : Math.max(0, lastEnd - Math.min(...starts)),
    leftAtEnd: lastEnd === null || !Number.isFinite(deadline) ? null : deadline - lastEnd,
  };
}

function duration(record: { startedAt: string; endedAt: string }): number {
  const elapsed = Date.parse(record.endedAt) - Date.parse(record.startedAt);
  return Number.isFinite(elapsed) && elapsed > 0 ? elapsed : 0;
}

/** The order the harness met the calls in: by round, then start time, then id (ties within a millisecond). */
function byAuditOrder(a: StoredToolInvocation, b: StoredToolInvocation): number {
  return (
    a.stepNumber - b.stepNumber ||
    (Date.parse(a.startedAt) || 0) - (Date.parse(b.startedAt) || 0) ||
    (Date.parse(a.endedAt) || 0) - (Date.parse(b.endedAt) || 0) ||
    (a.toolCallId < b.toolCallId ? -1 : a.toolCallId > b.toolCallId ? 1 : 0)
  );
}

function sum<T>(items: readonly T[], value: (item: T) => number): number {
  return items.reduce((total, item) => total + (Number.isFinite(value(item)) ? value(item) : 0), 0);
}
