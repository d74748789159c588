import type { ProcessScorecard } from '@diagnosis/core';

const seconds = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;
const percent = (share: number) => `${Math.round(share * 100)}%`;

/**
 * A run's process scorecard as a few lines of plain text (the trace's timeline and page, the report): rounds, tool
 * calls by outcome, refusals by code, redundant and unproductive calls, the guards' removals, citations, time. Only
 * numbers and the boundary's own codes, so nothing in it needs cleaning.
 */
export function describeProcessScorecard(card: ProcessScorecard): string[] {
  const calls = card.toolCalls;
  const refusals = Object.entries(calls.refusedByCode)
    .map(([code, count]) => `${code} ${count}`)
    .join(', ');
  const guards = card.guards;
  return [
    `process: ${card.rounds} rounds${card.judgeCalls > 0 ? `, ${card.judgeCalls} judge call${card.judgeCalls === 1 ? '' : 's'}` : ''}${card.answeredWithoutTools ? ', answered WITHOUT any tool call' : ''}`,
    `  tool calls ${calls.total}: ${calls.executed} executed (${calls.evidence} evidence, ${calls.empty} empty, ${calls.error} error), ${calls.refused} refused${refusals === '' ? '' : ` (${refusals})`}, ${calls.stopped} after stop`,
    `  redundant ${calls.redundant} · NO_GAIN ${calls.noGain} · unproductive ${calls.unproductive}`,
    `  guards removed ${guards.draftItems === null ? '— (no Draft)' : `${guards.removedItems ?? 0} of ${guards.draftItems} Draft items${guards.removedShare === null ? '' : ` (${percent(guards.removedShare)})`}`} · citations per finding ${card.citationsPerFinding === null ? '—' : card.citationsPerFinding.toFixed(1)}`,
    `  time in model ${seconds(card.timeMs.model)}, judge ${seconds(card.timeMs.judge)}, tools ${seconds(card.timeMs.tools)} · budget ${budget(card.budget.modelCalls, 'rounds')}, ${budget(card.budget.toolCalls, 'tool calls')}, ${budget(card.budget.tokens, 'tokens')}`,
  ];
}

/** A short cell for a listing: executed / refused / redundant calls, `—` without a scorecard. */
export function processCell(card: ProcessScorecard | null | undefined): string {
  if (card === null || card === undefined) return '—';
  return `${card.toolCalls.executed}x ${card.toolCalls.refused}ref ${card.toolCalls.redundant}dup${card.answeredWithoutTools ? ' NO-TOOLS' : ''}`;
}

function budget(use: ProcessScorecard['budget']['modelCalls'], what: string): string {
  return `${use.used.toLocaleString('en')}${use.allowed === null ? '' : `/${use.allowed.toLocaleString('en')}`} ${what}`;
}
