import { type DiagnosisDraft, type ProgressSnapshot, verifyDraftEvidence } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import {
  blamesChangeAfterSymptom,
  type ChangeCheckRow,
  type ChangeChecks,
  citedChangesOf,
} from '../../../../packages/core/src/release/change-after-symptom.ts';

const check = (toolCallId: string) => ({
  toolCallId,
  toolName: 'query_logs' as const,
  status: 'READY' as const,
  empty: false,
  evaluation: null,
});
const progress: ProgressSnapshot = {
  modelCalls: 3,
  toolCalls: 3,
  rejectedToolCalls: 0,
  totalTokens: 900,
  checks: [check('c1'), check('c2'), check('l1')],
};
const row = (changeId: string, ref: string | null, placement: ChangeCheckRow['placement']): ChangeCheckRow => ({
  changeId,
  at: '2026-11-30T06:01:40.000Z',
  service: 'order-service',
  kind: 'deploy',
  ref,
  summary: `deploy ${ref}`,
  url: `https://argocd.example.com/${changeId}`,
  placement,
});
const LATE = row('chg_lateaaaaaaaa', 'order-service@9c1e5b7d3a2f4e6b', 'AFTER_SYMPTOM');
const EARLY = row('chg_earlyaaaaaaa', 'v3.8.0', 'BEFORE_SYMPTOM');
const CHANGES: ChangeChecks = new Map([
  ['c1', [LATE, EARLY]],
  ['c2', [LATE]],
]);

type Item = DiagnosisDraft['analysis'][number];
const item = (type: Item['type'], ids: string[], statement: string): Item => ({
  type,
  statement,
  evidence_status: 'SUPPORTED',
  tool_call_ids: ids,
  scope: null,
});
const draftOf = (conclusion: string | null, analysis: Item[]): DiagnosisDraft => ({
  conclusion,
  analysis,
  action_plan: [],
  recommendations: [],
  limitations: { checked_scope: ['变更流'], missing_info: conclusion === null ? ['原因'] : [] },
});

describe('blamesChangeAfterSymptom', () => {
  it('blames a change when the finding names its id and it landed after the symptom', () => {
    expect(blamesChangeAfterSymptom(item('FINDING', ['c1'], '部署 chg_lateaaaaaaaa 导致下单失败'), CHANGES)).toBe(true);
  });

  it('blames a change when the finding names its commit by the first seven characters', () => {
    expect(blamesChangeAfterSymptom(item('FINDING', ['c1'], '9c1e5b7 版本引入空指针'), CHANGES)).toBe(true);
  });

  it('keeps a finding when it names a change that landed before the symptom', () => {
    expect(blamesChangeAfterSymptom(item('FINDING', ['c1'], 'v3.8.0 发布后出现空指针'), CHANGES)).toBe(false);
    const both = item('FINDING', ['c1'], 'v3.8.0 引入空指针，chg_lateaaaaaaaa 的回滚在症状之后');
    expect(blamesChangeAfterSymptom(both, CHANGES)).toBe(false);
  });

  it('blames the changes when the finding names none and rests on late changes alone', () => {
    expect(blamesChangeAfterSymptom(item('FINDING', ['c2'], '最近的一次部署导致了故障'), CHANGES)).toBe(true);
    expect(blamesChangeAfterSymptom(item('FINDING', ['c1'], '最近的一次部署导致了故障'), CHANGES)).toBe(false);
  });

  it('keeps a finding when it names no change and cites logs beside the change stream', () => {
    expect(blamesChangeAfterSymptom(item('FINDING', ['c2', 'l1'], '连接池耗尽'), CHANGES)).toBe(false);
  });

  it('never takes the service name in a ref as naming the change', () => {
    const finding = item('FINDING', ['c1', 'l1'], 'order-service 连接池耗尽');
    expect(blamesChangeAfterSymptom(finding, CHANGES)).toBe(false);
  });

  it('keeps hypotheses, negative observations and changes the run could not place', () => {
    expect(blamesChangeAfterSymptom(item('HYPOTHESIS', ['c2'], 'chg_lateaaaaaaaa 可能相关'), CHANGES)).toBe(false);
    const unplaced: ChangeChecks = new Map([['c2', [{ ...LATE, placement: null }]]]);
    expect(blamesChangeAfterSymptom(item('FINDING', ['c2'], 'chg_lateaaaaaaaa 导致'), unplaced)).toBe(false);
  });
});

describe('verifyDraftEvidence with a change that landed after the symptom', () => {
  it('removes the finding with its own code and withdraws the conclusion it carried', () => {
    const draft = draftOf('部署 chg_lateaaaaaaaa 导致下单失败', [
      item('FINDING', ['c1'], '部署 chg_lateaaaaaaaa 导致下单失败'),
    ]);
    const result = verifyDraftEvidence(draft, progress, undefined, CHANGES);
    expect(result).toMatchObject({
      ok: false,
      code: 'GUARD_CONCLUSION_UNSUPPORTED',
      removed: [{ index: 0, code: 'GUARD_CHANGE_AFTER_SYMPTOM' }],
    });
  });

  it('keeps the rest of the Draft and says what it removed when another finding carries the conclusion', () => {
    const draft = draftOf('v3.8.0 引入空指针', [
      item('FINDING', ['c2'], 'chg_lateaaaaaaaa 导致下单失败'),
      item('FINDING', ['c1', 'l1'], 'v3.8.0 发布后出现空指针'),
    ]);
    const result = verifyDraftEvidence(draft, progress, undefined, CHANGES);
    expect(result).toMatchObject({ ok: true, removed: [{ index: 0, code: 'GUARD_CHANGE_AFTER_SYMPTOM' }] });
    if (!result.ok) throw new Error('expected a verified Draft');
    expect(result.draft?.analysis).toEqual([draft.analysis[1]]);
    expect(result.draft?.limitations.missing_info[0]).toContain('AFTER_SYMPTOM');
    expect(result.draft?.limitations.missing_info[0]).toContain('草稿分析第 1 条（FINDING）');
    expect(JSON.stringify(result.draft)).not.toContain('chg_lateaaaaaaaa 导致下单失败');
  });

  it('removes nothing when the change stream was not cited', () => {
    const draft = draftOf('v3.8.0 引入空指针', [item('FINDING', ['l1'], 'chg_lateaaaaaaaa 导致')]);
    expect(verifyDraftEvidence(draft, progress, undefined, CHANGES)).toEqual({
      ok: true,
      citations: [{ tool_call_id: 'l1', tool_name: 'query_logs', empty: false }],
    });
  });
});

describe('citedChangesOf', () => {
  it('lists each change an item names once, with its link, placement and the checks that returned it', () => {
    const cited = citedChangesOf(
      [
        item('FINDING', ['c1', 'l1'], 'v3.8.0 发布后出现空指针'),
        item('HYPOTHESIS', ['c1', 'c2'], 'v3.8.0 与 9c1e5b7 都可能相关'),
      ],
      CHANGES,
    );
    expect(cited).toEqual([
      {
        change_id: 'chg_earlyaaaaaaa',
        at: '2026-11-30T06:01:40.000Z',
        service: 'order-service',
        kind: 'deploy',
        ref: 'v3.8.0',
        summary: 'deploy v3.8.0',
        url: 'https://argocd.example.com/chg_earlyaaaaaaa',
        placement: 'BEFORE_SYMPTOM',
        tool_call_ids: ['c1'],
      },
      expect.objectContaining({ change_id: 'chg_lateaaaaaaaa', tool_call_ids: ['c1', 'c2'] }),
    ]);
  });

  it('lists nothing when no item names a change of the checks it cites', () => {
    expect(citedChangesOf([item('FINDING', ['l1'], 'v3.8.0 发布后出现空指针')], CHANGES)).toEqual([]);
  });
});
