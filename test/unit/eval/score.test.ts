import type { DiagnosisResult } from '@diagnosis/core';
import { observeResult, type RunObservation, revealedObservation, scoreRun } from '@diagnosis/eval';
import { describe, expect, it } from 'vitest';

const diagnosisExpected = {
  outcome: 'DIAGNOSIS' as const,
  rootCause: {
    anyOf: [
      ['连接池', 'max_size'],
      ['HikariPool', '耗尽'],
    ],
  },
  mustNotClaim: ['数据库宕机'],
  requiredEvidence: ['query_logs' as const],
};
const abstainExpected = {
  outcome: 'ABSTAIN' as const,
  mustNotClaim: ['连接池'],
  requiredEvidence: [],
};

function published(conclusion: string | null, overrides: Partial<RunObservation> = {}): RunObservation {
  return {
    status: 'PUBLISHED',
    conclusion,
    claims: [],
    citedTools: ['query_logs'],
    evidenceGuard: 'PASSED',
    semanticGuard: 'SUPPORTED',
    removedClaims: 0,
    cause: null,
    pastIncidents: { seen: 0, removed: 0 },
    ...overrides,
  };
}
const fallback: RunObservation = {
  status: 'FALLBACK',
  conclusion: null,
  claims: [],
  citedTools: [],
  evidenceGuard: 'NOT_REACHED',
  semanticGuard: 'OFF',
  removedClaims: 0,
  cause: 'MAX_MODEL_CALLS',
  pastIncidents: { seen: 0, removed: 0 },
};

describe('scoreRun', () => {
  it('is CORRECT when the conclusion holds every keyword of one group and the required evidence is cited', () => {
    const score = scoreRun(diagnosisExpected, published('payment-gateway 的 db.pool.max_size 被调成 5，连接池被占满'));
    expect(score.verdict).toBe('CORRECT');
    expect(score.checks).toMatchObject({ outcome: true, rootCause: true, requiredEvidence: true, guards: true });
  });

  it('matches keywords case- and width-insensitively (full-width ＨｉｋａｒｉＰｏｏｌ is HikariPool)', () => {
    expect(scoreRun(diagnosisExpected, published('ｈｉｋａｒｉｐｏｏｌ 已耗尽')).verdict).toBe('CORRECT');
  });

  it('needs every keyword of a group: one keyword of each group is not a match', () => {
    const score = scoreRun(diagnosisExpected, published('连接池出了问题，HikariPool 报警'));
    expect(score.verdict).toBe('CONFIDENTLY_WRONG');
    expect(score.checks.rootCause).toBe(false);
  });

  it('ranks a published wrong cause as CONFIDENTLY_WRONG, below an abstention', () => {
    expect(scoreRun(diagnosisExpected, published('库存服务的缓存雪崩导致订单失败')).verdict).toBe('CONFIDENTLY_WRONG');
    expect(scoreRun(diagnosisExpected, fallback).verdict).toBe('ABSTAINED');
    expect(scoreRun(diagnosisExpected, published(null)).verdict).toBe('ABSTAINED');
  });

  it('fails a forbidden claim in a finding even when the conclusion is right', () => {
    const score = scoreRun(
      diagnosisExpected,
      published('连接池 max_size 过小', { claims: ['主库数据库宕机导致连接失败'] }),
    );
    expect(score.verdict).toBe('CONFIDENTLY_WRONG');
    expect(score.checks.forbiddenClaims).toEqual(['数据库宕机']);
  });

  it('is INCOMPLETE when the cause is right but required evidence is not among the verified citations', () => {
    const score = scoreRun(diagnosisExpected, published('连接池 max_size 过小', { citedTools: ['lookup_knowledge'] }));
    expect(score.verdict).toBe('INCOMPLETE');
    expect(score.checks.missingEvidence).toEqual(['query_logs']);
  });

  it('is INCOMPLETE when the judge failed (shadow mode published anyway)', () => {
    expect(scoreRun(diagnosisExpected, published('连接池 max_size 过小', { semanticGuard: 'FAILED' })).verdict).toBe(
      'INCOMPLETE',
    );
  });

  it('rewards abstaining where no conclusion is supported, and fails concluding there', () => {
    expect(scoreRun(abstainExpected, fallback).verdict).toBe('CORRECT');
    expect(scoreRun(abstainExpected, published(null)).verdict).toBe('CORRECT');
    expect(scoreRun(abstainExpected, published('网络抖动导致订单失败')).verdict).toBe('CONFIDENTLY_WRONG');
  });

  it('fails an abstention whose findings still make the forbidden claim', () => {
    const score = scoreRun(abstainExpected, published(null, { claims: ['连接池已经耗尽'] }));
    expect(score.verdict).toBe('CONFIDENTLY_WRONG');
  });

  it('is FAILED when the run published nothing at all', () => {
    const failed = { ...fallback, status: 'FAILED' as const, cause: 'MODEL_FAILED' };
    expect(scoreRun(diagnosisExpected, failed).verdict).toBe('FAILED');
    expect(scoreRun(abstainExpected, { ...failed, status: 'CANCELLED' }).verdict).toBe('FAILED');
  });
});

describe('observeResult', () => {
  const usage = {
    modelCalls: 3,
    inputTokens: 100,
    outputTokens: 10,
    totalTokens: 110,
    cachedInputTokens: 0,
    toolCalls: 2,
    inputBytes: 0,
    outputBytes: 0,
    estimatedTokenRounds: 0,
  };
  it('reads the published claims (the Draft the release trimmed: `removed` indexes the agent’s Draft), and the cited tools', () => {
    // The judge removed the agent's first item ('gone'): the release publishes the Draft without it, and `removed`
    // names its index in the agent's Draft. Every item left is published; none is removed a second time.
    const result = {
      runId: 'r',
      status: 'PUBLISHED',
      stopReason: null,
      progress: null,
      usage,
      report: {
        kind: 'DIAGNOSIS',
        draft: {
          conclusion: '结论',
          analysis: [
            { type: 'FINDING', statement: 'a', evidence_status: 'SUPPORTED', tool_call_ids: ['c1'], scope: null },
            { type: 'HYPOTHESIS', statement: 'b', evidence_status: 'SUPPORTED', tool_call_ids: ['c2'], scope: null },
            {
              type: 'NEGATIVE_OBSERVATION',
              statement: 'c',
              evidence_status: 'NO_EVIDENCE',
              tool_call_ids: ['c2'],
              scope: 's',
            },
          ],
          action_plan: [],
          recommendations: [],
          limitations: { checked_scope: [], missing_info: [] },
        },
        citations: [
          { tool_call_id: 'c1', tool_name: 'query_logs', empty: false },
          { tool_call_id: 'c2', tool_name: 'query_logs', empty: false },
        ],
        semantic_guard: {
          mode: 'enforce',
          model_id: 'm',
          outcome: 'JUDGED',
          failure: null,
          conclusion: { verdict: 'SUPPORTED', reason: 'r' },
          analysis: [],
          removed: [0],
        },
      },
    } as unknown as DiagnosisResult;
    expect(observeResult(result)).toMatchObject({
      conclusion: '结论',
      claims: ['a', 'b'],
      citedTools: ['query_logs'],
      semanticGuard: 'SUPPORTED',
      removedClaims: 1,
    });
  });

  it('reads a failed run as no conclusion with its error code as the cause', () => {
    const result = {
      runId: 'r',
      status: 'FAILED',
      stopReason: null,
      progress: null,
      usage,
      report: { kind: 'FAILED', message: 'm', error_code: 'MODEL_FAILED' },
    } as unknown as DiagnosisResult;
    expect(observeResult(result)).toMatchObject({
      conclusion: null,
      cause: 'MODEL_FAILED',
      evidenceGuard: 'NOT_REACHED',
    });
  });
});

describe('revealedObservation', () => {
  it('unmasks the conclusion and the claims for the comparison only, and leaves the rest as the run showed it', () => {
    const observation = {
      status: 'PUBLISHED' as const,
      conclusion: '用户 <phone:k3f2a> 的支付失败',
      claims: ['<phone:k3f2a> 的 3 笔订单超时', '网关 <ipv4:m2q7d> 无响应'],
      citedTools: ['query_logs'],
      evidenceGuard: 'PASSED' as const,
      semanticGuard: 'OFF' as const,
      removedClaims: 0,
      cause: null,
      pastIncidents: { seen: 0, removed: 0 },
    };
    const values: Record<string, string> = { '<phone:k3f2a>': '13812345678' };
    const revealed = revealedObservation(observation, (text) =>
      text.replace(/<[a-z_]+:[a-z2-7]+>/g, (token) => values[token] ?? token),
    );
    expect(revealed.conclusion).toBe('用户 13812345678 的支付失败');
    expect(revealed.claims).toEqual(['13812345678 的 3 笔订单超时', '网关 <ipv4:m2q7d> 无响应']);
    expect(observation.conclusion).toBe('用户 <phone:k3f2a> 的支付失败');
  });
});
