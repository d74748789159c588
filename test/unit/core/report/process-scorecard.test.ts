// NOTE: over 300 lines on purpose: one function (buildProcessScorecard) and every figure of its scorecard over one set
// of stored runs.
import type { DiagnosisDraft, StoredRun } from '@diagnosis/core';
import { buildProcessScorecard, type ScoredRun } from '@diagnosis/core';
import type { StoredStep, StoredToolInvocation } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import {
  envelope,
  KNOWLEDGE_INPUT,
  LOGS_INPUT,
  noConclusionDraft,
  supportedDraft,
} from '../../../support/run-fixtures.ts';

const at = (ms: number) => new Date(Date.parse('2026-11-30T06:10:00Z') + ms).toISOString();

function step(stepNumber: number, overrides: Partial<StoredStep> = {}): StoredStep {
  return {
    entity: 'agent_step',
    runId: 'run-1',
    stepNumber,
    role: 'AGENT',
    modelId: 'deepseek-v4-flash',
    finishReason: 'tool-calls',
    inputTokens: 1_000,
    outputTokens: 100,
    reasoningTokens: 40,
    cachedInputTokens: 200,
    usageEstimated: false,
    reasoningAvailable: true,
    contentSource: 'PROVIDER_REASONING+ASSISTANT_TEXT',
    contentBytes: 10,
    toolCalls: [],
    toolCallsTotal: 0,
    startedAt: at(stepNumber * 10_000),
    endedAt: at(stepNumber * 10_000 + 3_000),
    ...overrides,
  };
}

function tool(
  toolCallId: string,
  stepNumber: number,
  overrides: Partial<StoredToolInvocation> = {},
): StoredToolInvocation {
  return {
    entity: 'tool_invocation',
    runId: 'run-1',
    toolCallId,
    toolName: 'query_logs',
    stepNumber,
    disposition: 'EXECUTED',
    status: 'READY',
    empty: false,
    code: null,
    input: envelope(LOGS_INPUT),
    inputTruncated: false,
    observation: { tool_call_id: toolCallId, evidence_status: 'OK', data: { matched: 1, lines: [] } },
    result: null,
    resultTruncated: false,
    errorDetail: null,
    startedAt: at(stepNumber * 10_000 + 3_100),
    endedAt: at(stepNumber * 10_000 + 3_600),
    ...overrides,
  };
}

const LIMITS = {
  maxModelCalls: 8,
  maxTotalTokens: 64_000,
  maxToolCalls: 6,
  maxToolCallsPerRound: 16,
  maxRejectedToolCalls: 16,
  maxQueryBytes: 4_096,
  maxPreviousTurnBytes: 4_096,
  maxInputBytes: 12_288,
  maxDraftBytes: 16_384,
  finalRoundReserveMs: 20_000,
  noGainStopStreak: 2,
  modelRequestTimeoutMs: 90_000,
};

function run(overrides: Partial<ScoredRun> = {}): ScoredRun {
  const draft = supportedDraft(['call-1']);
  return {
    status: 'SUCCEEDED',
    draft,
    publishedResult: { draft, citations: [{ tool_call_id: 'call-1', tool_name: 'query_logs', empty: false }] },
    progress: {
      modelCalls: 2,
      toolCalls: 1,
      rejectedToolCalls: 0,
      totalTokens: 2_200,
      checks: [{ toolCallId: 'call-1', toolName: 'query_logs', status: 'READY', empty: false, evaluation: 'PENDING' }],
    },
    limits: LIMITS,
    deadlineAt: at(60_000),
    ...overrides,
  };
}

describe('buildProcessScorecard', () => {
  it('counts rounds, the judge, tokens, budget use and time from the steps and tool calls', () => {
    const steps = [step(1), step(2, { finishReason: 'stop' }), step(3, { role: 'JUDGE', inputTokens: 500 })];
    const card = buildProcessScorecard(run(), steps, [tool('call-1', 1)]);
    expect(card.rounds).toBe(2);
    expect(card.judgeCalls).toBe(1);
    expect(card.tokens).toEqual({
      input: 2_500,
      output: 300,
      reasoning: 120,
      cachedInput: 600,
      total: 2_800,
      estimatedRounds: 0,
    });
    expect(card.budget).toEqual({
      modelCalls: { used: 2, allowed: 8 },
      toolCalls: { used: 1, allowed: 6 },
      tokens: { used: 2_200, allowed: 64_000 },
      refusedCalls: { used: 0, allowed: 16 },
    });
    expect(card.timeMs).toEqual({ model: 6_000, judge: 3_000, tools: 500, span: 23_000, leftAtEnd: 27_000 });
    expect(card.answeredWithoutTools).toBe(false);
    expect(card.citationsPerFinding).toBe(1);
  });

  it('flags a run that answered without any tool call', () => {
    const draft = noConclusionDraft();
    const card = buildProcessScorecard(
      run({ status: 'SUCCEEDED', draft, publishedResult: { draft, citations: [] }, progress: null }),
      [step(1, { finishReason: 'stop' })],
      [],
    );
    expect(card.answeredWithoutTools).toBe(true);
    expect(card.toolCalls.total).toBe(0);
    expect(card.citationsPerFinding).toBeNull();
    expect(card.guards).toEqual({ draftItems: 0, removedItems: 0, removedShare: null });
  });

  it('does not flag a run without a Draft as answering without tools', () => {
    const card = buildProcessScorecard(run({ status: 'FAILED', draft: null, publishedResult: null }), [], []);
    expect(card.answeredWithoutTools).toBe(false);
    expect(card.guards).toEqual({ draftItems: null, removedItems: null, removedShare: null });
  });

  it('counts the second of two identical calls as redundant, whatever the key order of its input', () => {
    const reordered = {
      level: 'ERROR',
      end_time: LOGS_INPUT.end_time,
      start_time: LOGS_INPUT.start_time,
      service: 'order-service',
    };
    const tools = [
      tool('call-1', 1),
      tool('call-2', 2, {
        disposition: 'REJECTED',
        status: null,
        code: 'DUPLICATE_CALL',
        input: envelope(reordered, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
      }),
      tool('call-3', 2, { toolName: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }),
    ];
    const card = buildProcessScorecard(run(), [step(1), step(2)], tools);
    expect(card.toolCalls.redundant).toBe(1);
    expect(card.toolCalls.refused).toBe(1);
    expect(card.toolCalls.refusedByCode).toEqual({ DUPLICATE_CALL: 1 });
  });

  it('counts two identical calls executed in the same round as one redundant call', () => {
    const tools = [tool('call-b', 1), tool('call-a', 1)];
    expect(buildProcessScorecard(run(), [step(1)], tools).toolCalls.redundant).toBe(1);
  });

  it('does not count a retry of a refused call as redundant (nothing ran before it)', () => {
    const tools = [
      tool('call-1', 1, { disposition: 'REJECTED', status: null, code: 'MISSING_PREVIOUS_OBSERVATION' }),
      tool('call-2', 2),
    ];
    const card = buildProcessScorecard(run(), [step(1), step(2)], tools);
    expect(card.toolCalls.redundant).toBe(0);
    expect(card.toolCalls.refusedByCode).toEqual({ MISSING_PREVIOUS_OBSERVATION: 1 });
    expect(card.budget.refusedCalls.used).toBe(1);
  });

  it('counts refused calls by code and calls after collection stopped apart', () => {
    const tools = [
      tool('call-1', 1, { disposition: 'REJECTED', status: null, code: 'INVALID_INPUT', input: { input: { bad: 1 } } }),
      tool('call-2', 1, { disposition: 'REJECTED', status: null, code: 'UNKNOWN_TOOL', input: {} }),
      tool('call-3', 1, { disposition: 'REJECTED', status: null, code: 'INVALID_INPUT', input: 'not json' }),
      tool('call-4', 2, { disposition: 'STOPPED', status: null, code: 'STOP_REQUIRED' }),
    ];
    const card = buildProcessScorecard(run(), [step(1), step(2)], tools);
    expect(card.toolCalls).toMatchObject({
      total: 4,
      executed: 0,
      refused: 3,
      stopped: 1,
      refusedByCode: { INVALID_INPUT: 2, UNKNOWN_TOOL: 1 },
    });
  });

  it('counts empty, failed and NO_GAIN calls as unproductive, each once', () => {
    const tools = [
      tool('call-1', 1, { empty: true }),
      tool('call-2', 2, { status: 'ERROR', code: 'TIMEOUT', input: envelope({ ...LOGS_INPUT, keyword: 'x' }) }),
      tool('call-3', 3, { input: envelope({ ...LOGS_INPUT, keyword: 'y' }) }),
      tool('call-4', 4, { input: envelope({ ...LOGS_INPUT, keyword: 'z' }) }),
    ];
    const progress = {
      modelCalls: 4,
      toolCalls: 4,
      rejectedToolCalls: 0,
      totalTokens: 1,
      checks: [
        {
          toolCallId: 'call-1',
          toolName: 'query_logs' as const,
          status: 'READY' as const,
          empty: true,
          evaluation: null,
        },
        {
          toolCallId: 'call-2',
          toolName: 'query_logs' as const,
          status: 'ERROR' as const,
          empty: false,
          evaluation: null,
        },
        {
          toolCallId: 'call-3',
          toolName: 'query_logs' as const,
          status: 'READY' as const,
          empty: false,
          evaluation: 'NO_GAIN' as const,
        },
        {
          toolCallId: 'call-4',
          toolName: 'query_logs' as const,
          status: 'READY' as const,
          empty: false,
          evaluation: 'GAINED' as const,
        },
      ],
    };
    const card = buildProcessScorecard(run({ progress }), [step(1)], tools);
    expect(card.toolCalls).toMatchObject({ executed: 4, evidence: 2, empty: 1, error: 1, noGain: 1, unproductive: 3 });
  });

  it('measures the share of the Draft the guards removed from the published result', () => {
    const draft: DiagnosisDraft = {
      ...supportedDraft(['call-1']),
      analysis: [
        ...supportedDraft(['call-1']).analysis,
        {
          type: 'HYPOTHESIS',
          statement: '可能是发布引起',
          evidence_status: 'SUPPORTED',
          tool_call_ids: ['call-1', 'call-2'],
          scope: null,
        },
        {
          type: 'FINDING',
          statement: '网关 503',
          evidence_status: 'SUPPORTED',
          tool_call_ids: ['call-1', 'call-2', 'call-3'],
          scope: null,
        },
      ],
    };
    const published: DiagnosisDraft = {
      ...draft,
      analysis: [draft.analysis[0], draft.analysis[2]] as DiagnosisDraft['analysis'],
    };
    const card = buildProcessScorecard(run({ draft, publishedResult: { draft: published, citations: [] } }), [], []);
    expect(card.guards).toEqual({ draftItems: 4, removedItems: 1, removedShare: 0.25 });
    expect(card.citationsPerFinding).toBe(2);
  });

  it('counts every item of a Draft a guard refused as removed', () => {
    const draft = supportedDraft(['call-9']);
    const card = buildProcessScorecard(run({ status: 'FALLBACK', draft, publishedResult: null }), [], []);
    expect(card.guards).toEqual({ draftItems: 2, removedItems: 2, removedShare: 1 });
  });

  it('reports no allowance and no time left when the run item holds no limits or deadline', () => {
    const card = buildProcessScorecard(
      run({ limits: null, deadlineAt: null }),
      [step(1, { usageEstimated: true })],
      [],
    );
    expect(card.budget.modelCalls).toEqual({ used: 1, allowed: null });
    expect(card.timeMs.leftAtEnd).toBeNull();
    expect(card.tokens.estimatedRounds).toBe(1);
  });

  it('never throws on damaged records (a missing time, an unknown code)', () => {
    const tools = [tool('call-1', 1, { startedAt: 'not a time', disposition: 'REJECTED', code: 'lower case code' })];
    const card = buildProcessScorecard(run({ progress: null }), [step(1, { endedAt: 'x' })], tools);
    expect(card.toolCalls.refusedByCode).toEqual({ UNKNOWN: 1 });
    expect(card.timeMs.model).toBe(0);
  });
});

// The StoredRun type accepts a scorecard-less run read back from an older item.
const _older: Pick<StoredRun, 'processScorecard'> = {};
void _older;
