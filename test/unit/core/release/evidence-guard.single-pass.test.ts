import {
  type DiagnosisDraft,
  type ProgressSnapshot,
  verifyDraftEvidence,
  verifyExecutionEvidence,
} from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { citationsOf } from '../../../../packages/core/src/release/evidence-guard.ts';
import { supportedDraft } from '../../../support/run-fixtures.ts';

const check = (toolCallId: string, toolName: 'query_logs' | 'lookup_knowledge' = 'query_logs') => ({
  toolCallId,
  toolName,
  status: 'READY' as const,
  empty: false,
  evaluation: null,
});
const progress = (...checks: ReturnType<typeof check>[]): ProgressSnapshot => ({
  modelCalls: 2,
  toolCalls: checks.length,
  rejectedToolCalls: 0,
  totalTokens: 500,
  checks,
});
const finding = (statement: string, ids: string[]): DiagnosisDraft['analysis'][number] => ({
  type: 'FINDING',
  statement,
  evidence_status: 'SUPPORTED',
  tool_call_ids: ids,
  scope: null,
});

describe('verifyExecutionEvidence', () => {
  it('is null when the execution has no Draft', () => {
    expect(verifyExecutionEvidence({ draft: null, progress: progress(check('c1')) })).toBeNull();
  });

  it('is the EvidenceGuard’s result on the execution’s Draft when it has one', () => {
    const snapshot = progress(check('c1'));
    for (const draft of [supportedDraft(['c1']), supportedDraft(['c9'])]) {
      expect(verifyExecutionEvidence({ draft, progress: snapshot })).toEqual(verifyDraftEvidence(draft, snapshot));
    }
  });
});

describe('citationsOf', () => {
  const verified = [
    { tool_call_id: 'c1', tool_name: 'query_logs' as const, empty: false },
    { tool_call_id: 'c2', tool_name: 'lookup_knowledge' as const, empty: false },
  ];

  it('names the verified checks a trimmed Draft cites, in the order it first cites them', () => {
    const draft = { ...supportedDraft(['c2', 'c1']), analysis: [finding('b', ['c2', 'c1']), finding('a', ['c1'])] };
    expect(citationsOf(draft, verified)).toEqual([verified[1], verified[0]]);
  });

  it('leaves out the checks only removed items cited', () => {
    const draft = { ...supportedDraft(['c1']), analysis: [finding('a', ['c1'])] };
    expect(citationsOf(draft, verified)).toEqual([verified[0]]);
  });

  it('agrees with the guard on a whole Draft', () => {
    const draft = { ...supportedDraft(['c2']), analysis: [finding('b', ['c2']), finding('a', ['c1', 'c2'])] };
    const result = verifyDraftEvidence(draft, progress(check('c1'), check('c2', 'lookup_knowledge')));
    expect(result.ok && citationsOf(draft, result.citations)).toEqual(result.ok && result.citations);
  });
});
