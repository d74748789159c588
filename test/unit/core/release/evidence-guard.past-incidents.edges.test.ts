import { type DiagnosisDraft, type ProgressSnapshot, verifyDraftEvidence } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';

// The EvidenceGuard's removal of items resting on past incidents alone, case by case, with exact results (issue 33:
// each case tells a mutant of removePastIncidentOnly in evidence-guard.ts from the original).

type Check = ProgressSnapshot['checks'][number];
const check = (toolCallId: string, options: Partial<Check> = {}): Check => ({
  toolCallId,
  toolName: toolCallId.startsWith('k') ? 'lookup_knowledge' : 'query_logs',
  status: 'READY',
  empty: false,
  evaluation: null,
  ...options,
});
/** k1, k2: lookups that returned past incidents; l1: logs with lines; l2: logs that found nothing; e1: a failed lookup. */
const progress: ProgressSnapshot = {
  modelCalls: 4,
  toolCalls: 5,
  rejectedToolCalls: 0,
  totalTokens: 1_200,
  checks: [check('k1'), check('k2'), check('l1'), check('l2', { empty: true }), check('e1', { status: 'ERROR' })],
};
/** Lookups that returned past incidents and no runbook hit: their ids stand for past incidents. */
const PAST = { incidents: new Map<string, string>(), memoryOnlyLookups: new Set(['k1', 'k2', 'e1']) };

type Item = DiagnosisDraft['analysis'][number];
const item = (type: Item['type'], ids: string[], statement = `${type} ${ids.join(',')}`): Item => ({
  type,
  statement,
  evidence_status: 'SUPPORTED',
  tool_call_ids: ids,
  scope: null,
});
const draftOf = (analysis: Item[], missingInfo: string[] = ['原因']): DiagnosisDraft => ({
  conclusion: null,
  analysis,
  action_plan: [],
  recommendations: [],
  limitations: { checked_scope: ['日志', '知识库'], missing_info: missingInfo },
});
/** The line the guard lists first in `missing_info` for a removed item. */
const removedLine = (index: number, type: Item['type']) =>
  `证据校验已移除草稿分析第 ${index + 1} 条（${type}）——它只引用了历史事件（past_incident），历史事件只是待用本次日志与数据核实的线索，不是本次故障的证据。`;
const citation = (id: string) => ({
  tool_call_id: id,
  tool_name: id.startsWith('k') ? 'lookup_knowledge' : 'query_logs',
  empty: false,
});

describe('verifyDraftEvidence: removing items that rest on past incidents alone', () => {
  it('removes a SUPPORTED NEGATIVE_OBSERVATION on past incidents alone, and says so exactly', () => {
    const draft = draftOf([item('NEGATIVE_OBSERVATION', ['k1', 'k2'], '上次没有发布'), item('FINDING', ['l1'])]);
    expect(verifyDraftEvidence(draft, progress, PAST)).toStrictEqual({
      ok: true,
      citations: [citation('l1')],
      removed: [{ index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' }],
      draft: {
        ...draft,
        analysis: [draft.analysis[1]],
        limitations: {
          checked_scope: ['日志', '知识库'],
          missing_info: [removedLine(0, 'NEGATIVE_OBSERVATION'), '原因'],
        },
      },
    });
  });

  it('never publishes the removed statement: its line names it by its place in the Draft', () => {
    const statement = '与上次相同：payment-gateway 2.14.0 把 db.pool.max_size 调成了 5';
    const draft = draftOf([item('FINDING', ['l1']), item('FINDING', ['k1'], statement)]);
    const result = verifyDraftEvidence(draft, progress, PAST);
    expect(result.ok && result.draft?.limitations.missing_info[0]).toBe(removedLine(1, 'FINDING'));
    expect(JSON.stringify(result.ok && result.draft)).not.toContain('db.pool.max_size');
  });

  it('removes every such item, keeping the rest in their order', () => {
    const draft = draftOf([
      item('FINDING', ['k1']),
      item('FINDING', ['l1']),
      item('FINDING', ['k2']),
      item('HYPOTHESIS', ['k2']),
    ]);
    const result = verifyDraftEvidence(draft, progress, PAST);
    expect(result).toMatchObject({
      ok: true,
      removed: [
        { index: 0, code: 'GUARD_PAST_INCIDENT_ONLY' },
        { index: 2, code: 'GUARD_PAST_INCIDENT_ONLY' },
      ],
    });
    expect(result.ok && result.draft?.analysis).toEqual([draft.analysis[1], draft.analysis[3]]);
    expect(result.ok && result.draft?.limitations.missing_info).toEqual([
      removedLine(0, 'FINDING'),
      removedLine(2, 'FINDING'),
      '原因',
    ]);
  });

  it.each([
    [
      'it also cites an id that is no check of the run',
      [item('FINDING', ['k1', 'call-never-made'])],
      { ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 0 },
    ],
    [
      'the past-incident check it cites failed (not READY)',
      [item('FINDING', ['e1'])],
      { ok: false, code: 'GUARD_UNKNOWN_CITATION', analysisIndex: 0 },
    ],
    [
      'it cites only checks that found nothing',
      [item('FINDING', ['l2'])],
      { ok: false, code: 'GUARD_SUPPORTED_WITHOUT_EVIDENCE', analysisIndex: 0 },
    ],
    [
      'it is a NO_EVIDENCE observation (checked as any other)',
      [{ ...item('NEGATIVE_OBSERVATION', ['k1']), evidence_status: 'NO_EVIDENCE', scope: '知识库' } as Item],
      { ok: false, code: 'GUARD_NO_EVIDENCE_NOT_EMPTY', analysisIndex: 0 },
    ],
    [
      'it rests on today’s logs beside the past incident',
      [item('FINDING', ['k1', 'l1'])],
      { ok: true, citations: [citation('k1'), citation('l1')] },
    ],
  ])('removes nothing when %s: the result is that of no past incidents', (_label, analysis, expected) => {
    const draft = draftOf(analysis);
    expect(verifyDraftEvidence(draft, progress, PAST)).toStrictEqual(expected);
    expect(verifyDraftEvidence(draft, progress)).toStrictEqual(expected);
  });
});

describe('verifyDraftEvidence: the limitation lines of removed items stay within the Draft’s ten', () => {
  const own = (count: number) => Array.from({ length: count }, (_unused, index) => `原有限制 ${index + 1}`);

  it('keeps all lines when the removal lines and the Draft’s own make exactly ten', () => {
    const result = verifyDraftEvidence(draftOf([item('FINDING', ['k1'], 'a')], own(9)), progress, PAST);
    expect(result.ok && result.draft?.limitations.missing_info).toEqual([removedLine(0, 'FINDING'), ...own(9)]);
  });

  it('keeps nine and counts the rest in a tenth line when they make more', () => {
    const draft = draftOf([item('FINDING', ['k1'], 'a'), item('FINDING', ['k2'], 'b')], own(10));
    const result = verifyDraftEvidence(draft, progress, PAST);
    expect(result.ok && result.draft?.limitations.missing_info).toEqual([
      removedLine(0, 'FINDING'),
      removedLine(1, 'FINDING'),
      ...own(7),
      '另有 3 条限制未列出，见本次运行的审计记录（草稿）。',
    ]);
  });
});
