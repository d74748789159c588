import {
  type ChangeRecord,
  changeIdOf,
  createChangeStreamLogs,
  type DiagnosisDraft,
  executeDiagnosisRun,
} from '@diagnosis/core';
import { createMemoryChangeStore, createMemoryStores } from '@diagnosis/core/store';
import { describe, expect, it } from 'vitest';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';
import { draftAnswer, envelope } from '../../../support/run-fixtures.ts';
import { observationsIn, scriptedModel, textRound, toolRound } from '../../../support/scripted-model.ts';

const SYMPTOM = '2026-11-30T06:05:00.000Z';
const WINDOW = { from: '2026-11-30T05:35:00.000Z', to: '2026-11-30T06:35:00.000Z' };

const change = (enterpriseId: string, eventId: string, at: string, ref: string): ChangeRecord => ({
  enterpriseId,
  source: 'webhook',
  origin: `argocd-${enterpriseId.toLowerCase()}`,
  eventId,
  at,
  service: 'inventory-service',
  environment: 'production',
  kind: 'deploy',
  ref,
  actor: 'release-bot',
  summary: `${enterpriseId} inventory-service ${ref}`,
  url: 'https://argocd.example.com/applications/inventory-service',
  receivedAt: at,
});

const EARLY = change('E1001', 'early', '2026-11-30T06:01:40.000Z', 'v3.8.0');
const LATE = change('E1001', 'late', '2026-11-30T06:09:00.000Z', 'v3.8.1');
const OTHER = change('E1002', 'other', '2026-11-30T06:02:00.000Z', 'v9.9.9');
const idOf = (record: ChangeRecord) => changeIdOf(record.source, record.origin, record.eventId);

const CHANGES_INPUT = {
  service: 'changes/inventory-service',
  start_time: '2026-11-30T13:30:00+08:00',
  end_time: '2026-11-30T14:30:00+08:00',
};

function blaming(record: ChangeRecord): DiagnosisDraft {
  const statement = `部署 ${idOf(record)} 之后库存服务开始抛出空指针`;
  return {
    conclusion: statement,
    analysis: [
      { type: 'FINDING', statement, evidence_status: 'SUPPORTED', tool_call_ids: ['call-changes'], scope: null },
    ],
    action_plan: [{ step: '回滚该部署', purpose: '恢复库存扣减' }],
    recommendations: [],
    limitations: { checked_scope: ['E1001 inventory-service 变更流'], missing_info: [] },
  };
}

async function triggeredRun(runId: string, enterpriseId: string, draft: (seen: Record<string, unknown>) => string) {
  const stores = createMemoryStores();
  const changes = createMemoryChangeStore();
  for (const record of [EARLY, LATE, OTHER]) await changes.record(record);
  const fake = createFakeEvidence();
  const evidence = {
    ...fake.evidence,
    query_logs: createChangeStreamLogs({
      logs: fake.evidence.query_logs,
      changes,
    }),
  };
  const request = { runId, sessionId: `s-${runId}`, enterpriseId, query: '库存扣减失败', continueSession: false };
  await stores.queueRun({
    ...request,
    window: WINDOW,
    trigger: { source: 'cloudwatch', incidentKey: 'k', eventId: 'e', title: 'InventoryErrors', startedAt: SYMPTOM },
  });
  const seen: Record<string, unknown>[] = [];
  const model = scriptedModel([
    toolRound([{ id: 'call-changes', name: 'query_logs', input: envelope(CHANGES_INPUT) }]),
    (call) => {
      seen.push(...observationsIn(call.prompt));
      return textRound(draft(seen[0] ?? {}));
    },
  ]);
  const result = await executeDiagnosisRun(
    { ...request, remainingMs: 60_000 },
    { model, evidence, createStore: () => stores, flushReserveMs: 100, limits: { finalRoundReserveMs: 100 } },
  );
  return { result, seen, stores };
}

describe('executeDiagnosisRun with the change stream', () => {
  it('shows a triggered run its own enterprise’s changes, each placed against the symptom', async () => {
    const { seen } = await triggeredRun('run-changes-seen', 'E1001', () => draftAnswer(blaming(EARLY)));
    const data = seen[0]?.data as { columns: string[]; rows: unknown[][] };
    const placement = data.columns.indexOf('placement');
    const id = data.columns.indexOf('change_id');
    expect(data.rows.map((row) => [row[id], row[placement]])).toEqual([
      [idOf(LATE), 'AFTER_SYMPTOM'],
      [idOf(EARLY), 'BEFORE_SYMPTOM'],
    ]);
    expect(JSON.stringify(seen)).not.toContain('E1002');
  });

  it('publishes a finding that blames the change which landed before the symptom, the change with its link', async () => {
    const { result } = await triggeredRun('run-changes-early', 'E1001', () => draftAnswer(blaming(EARLY)));
    expect(result.status).toBe('PUBLISHED');
    expect(result.report).toMatchObject({
      changes: [
        {
          change_id: idOf(EARLY),
          at: EARLY.at,
          service: 'inventory-service',
          kind: 'deploy',
          ref: 'v3.8.0',
          url: EARLY.url,
          placement: 'BEFORE_SYMPTOM',
          tool_call_ids: ['call-changes'],
        },
      ],
    });
  });

  it('removes a finding that blames the change which landed after the symptom, publishing no cause', async () => {
    const { result, stores } = await triggeredRun('run-changes-late', 'E1001', () => draftAnswer(blaming(LATE)));
    expect(result.status).not.toBe('PUBLISHED');
    const stored = await stores.getRun('run-changes-late');
    expect(JSON.stringify(stored)).toContain('GUARD_CHANGE_AFTER_SYMPTOM');
  });

  it('never shows a run of another enterprise a change it did not record', async () => {
    const { seen } = await triggeredRun('run-changes-e1002', 'E1002', () => draftAnswer(blaming(OTHER)));
    expect(JSON.stringify(seen)).not.toContain(idOf(EARLY));
    expect(JSON.stringify(seen)).not.toContain(idOf(LATE));
  });
});
