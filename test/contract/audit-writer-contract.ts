// NOTE: over 300 lines on purpose: one port's contract suite (AuditWriter), run as a whole against DynamoDB Local and
// the in-memory twin so the twin cannot drift; a port's suite stays one file.
import { createRunContext, runDiagnosis } from '@diagnosis/core';
import {
  AuditWriteError,
  type AuditWriter,
  ITEM_CAPS,
  type Item,
  type RunStore,
  type StoredReasoning,
  type StoredStep,
  type StoredToolInvocation,
} from '@diagnosis/core/store';
import { afterEach, describe, expect, it } from 'vitest';
import { createMaskingSession } from '../../packages/core/src/tools/masking/masking-session.ts';
import { openPseudonymBatches, sealNewPseudonyms } from '../../packages/core/src/tools/masking/pseudonym-map.ts';
import { publishedOutcome, STORE_T0, stepEvent, toolEvent } from '../support/audit-events.ts';
import { createFakeEvidence } from '../support/fake-evidence.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../support/scripted-model.ts';
import { allRecords, newRunId, start } from './run-store-contract.ts';

export interface AuditWriterUnderTest {
  /** The audit writer of one run. */
  audit: AuditWriter;
  /** A run store on the same table: it starts the run and reads its audit trail back. */
  store: RunStore;
  /** Every raw item the table holds for a run (its run, reasoning and pseudonym partitions), as persisted. */
  rawItems(runId: string): Promise<Item[]>;
  cleanup(): Promise<void>;
}

export type AuditWriterFactory = (options: {
  now: () => number;
  reasoningRetentionDays?: number;
}) => Promise<AuditWriterUnderTest>;

const CONTRACT_SECRET = 'contract-suite-masking-secret-of-32-characters';

/**
 * One behaviour for every AuditWriter: the DynamoDB one and the in-memory twin run the same suite. What it wrote is
 * read back through the run store of the same table (its own suite is `run-store-contract.ts`) and as raw items.
 */
export function describeAuditWriterContract(label: string, factory: AuditWriterFactory): void {
  describe(`AuditWriter contract: ${label}`, () => {
    let clock = STORE_T0;
    const now = () => clock;
    let current: AuditWriterUnderTest | undefined;
    const make = async (options: { reasoningRetentionDays?: number } = {}) => {
      current = await factory({ now, ...options });
      return current;
    };
    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
      clock = STORE_T0;
    });

    it('writes steps, reasoning and tool invocations behind, readable in key order after flush', async () => {
      const { audit, store } = await make();
      const runId = newRunId();
      await start(store, runId);
      await audit.onModelStep(stepEvent(runId, 1));
      await audit.onToolInvocation(toolEvent(runId, 'call_01_a'));
      await audit.onModelStep(stepEvent(runId, 2, { finishReason: 'stop', toolCalls: [], reasoningContent: '' }));
      await audit.flush();

      const withoutReasoning = await allRecords(store, runId, false);
      expect(withoutReasoning.records.map((record) => record.entity)).toEqual([
        'run',
        'agent_step',
        'agent_step',
        'tool_invocation',
      ]);
      const withReasoning = await allRecords(store, runId, true);
      expect(withReasoning.records.map((record) => record.entity)).toEqual([
        'run',
        'agent_step',
        'agent_step',
        'tool_invocation',
        'agent_reasoning_audit',
        'agent_reasoning_audit',
      ]);
      const step = withReasoning.records[1] as StoredStep;
      expect(step).toMatchObject({
        stepNumber: 1,
        modelId: 'deepseek-v4-flash',
        inputTokens: 1_200,
        cachedInputTokens: 1_024,
        reasoningAvailable: true,
        toolCalls: [{ toolCallId: 'call_01_a', toolName: 'query_logs' }],
        toolCallsTotal: 1,
      });
      // NOTE: a step carries no text of the model's (no reasoning, no `thought` mirror): that is the reasoning's.
      expect(step).not.toHaveProperty('reasoningContent');
      expect(step).not.toHaveProperty('thought');
      expect(withReasoning.records[4]).toMatchObject({
        stepNumber: 1,
        reasoningContent: '先查看 payment-gateway 的错误日志。',
      });
      const tool = withReasoning.records[3] as StoredToolInvocation;
      expect(tool).toMatchObject({
        toolCallId: 'call_01_a',
        disposition: 'EXECUTED',
        status: 'READY',
        observation: toolEvent(runId, 'call_01_a').observation,
        result: toolEvent(runId, 'call_01_a').result,
        resultTruncated: false,
      });
    });

    it('caps a 40,000-character Chinese reasoning at 32,000 characters with the right content_bytes', async () => {
      const { audit, store } = await make();
      const runId = newRunId();
      await start(store, runId);
      await audit.onModelStep(stepEvent(runId, 1, { reasoningContent: '推理'.repeat(20_000), assistantText: 'ok' }));
      await audit.flush();
      const { records } = await allRecords(store, runId, true);
      const reasoning = records.find((record) => record.entity === 'agent_reasoning_audit') as StoredReasoning;
      expect(reasoning.reasoningContent).toHaveLength(ITEM_CAPS.reasoningChars);
      expect(reasoning.contentBytes).toBe(ITEM_CAPS.reasoningChars * 3 + 2);
      const step = records.find((record) => record.entity === 'agent_step') as StoredStep;
      expect(step.contentBytes).toBe(reasoning.contentBytes);
    });

    it('stores a 1 MB tool result truncated and flagged, and the write does not fail', async () => {
      const { audit, store } = await make();
      const runId = newRunId();
      await start(store, runId);
      const huge = { rows: Array.from({ length: 20_000 }, (_, index) => ['订单失败原因', index, 'x'.repeat(20)]) };
      expect(Buffer.byteLength(JSON.stringify(huge))).toBeGreaterThan(1_000_000);
      await audit.onToolInvocation(
        toolEvent(runId, 'call_big', { result: huge, input: { input: { query: 'q'.repeat(40_000) } } }),
      );
      await audit.flush();
      const tool = (await allRecords(store, runId, false)).records.find(
        (record) => record.entity === 'tool_invocation',
      ) as StoredToolInvocation;
      expect(tool.resultTruncated).toBe(true);
      expect(typeof tool.result).toBe('string');
      expect(Buffer.byteLength(tool.result as string)).toBeLessThanOrEqual(ITEM_CAPS.resultBytes);
      expect(tool.inputTruncated).toBe(true);
    });

    it('refuses a second record for the same tool call id, keeping the first intact', async () => {
      const { audit, store } = await make();
      const runId = newRunId();
      await start(store, runId);
      await audit.onToolInvocation(toolEvent(runId, 'call_dup'));
      await audit.onToolInvocation(
        toolEvent(runId, 'call_dup', {
          status: 'ERROR',
          code: 'INTERNAL',
          observation: { overwritten: true } as never,
        }),
      );
      const failure = await audit.flush().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(AuditWriteError);
      expect((failure as AuditWriteError).failedItems).toEqual([
        { key: `RUN#${runId}|TOOL#call_dup`, reason: 'ConditionalCheckFailedException' },
      ]);
      const tools = (await allRecords(store, runId, false)).records.filter(
        (record) => record.entity === 'tool_invocation',
      );
      expect(tools).toHaveLength(1);
      expect(tools[0]).toMatchObject({ status: 'READY', observation: toolEvent(runId, 'call_dup').observation });
      await audit.flush();
    });

    it('keeps the harness’s DUPLICATE_TOOL_CALL_ID rejection beside the canonical record', async () => {
      const { audit, store } = await make();
      const runId = newRunId();
      await start(store, runId);
      await audit.onToolInvocation(toolEvent(runId, 'call_x'));
      await audit.onToolInvocation(
        toolEvent(runId, 'call_x', {
          disposition: 'REJECTED',
          status: null,
          code: 'DUPLICATE_TOOL_CALL_ID',
          result: null,
        }),
      );
      await audit.flush();
      const tools = (await allRecords(store, runId, false)).records as StoredToolInvocation[];
      expect(
        tools
          .filter((record) => record.entity === 'tool_invocation')
          .map((record) => [record.toolCallId, record.disposition]),
      ).toEqual([
        ['call_x', 'EXECUTED'],
        ['call_x', 'REJECTED'],
      ]);
    });

    it('reads a run with 30 tool invocations of 90 KB results back completely through pagination', async () => {
      const { audit, store } = await make();
      const runId = newRunId();
      await start(store, runId);
      const result = { blob: '数'.repeat(30_000) };
      for (let index = 0; index < 30; index += 1) {
        await audit.onToolInvocation(toolEvent(runId, `call_${String(index).padStart(2, '0')}`, { result }));
      }
      await audit.flush();
      const { records, pages } = await allRecords(store, runId, false, 7);
      const tools = records.filter((record) => record.entity === 'tool_invocation') as StoredToolInvocation[];
      expect(tools).toHaveLength(30);
      expect(pages).toBeGreaterThan(1);
      expect(records).toHaveLength(31);
      expect(
        tools.every((tool) => !tool.resultTruncated && (tool.result as { blob: string }).blob.length === 30_000),
      ).toBe(true);
    });

    it('pages a run’s records and its reasoning apart, each page full but the last', async () => {
      const { audit, store } = await make();
      const runId = newRunId();
      await start(store, runId);
      for (let step = 1; step <= 4; step += 1) await audit.onModelStep(stepEvent(runId, step));
      await audit.flush();
      const reasoning = await store.listReasoning(runId, { limit: 3 });
      expect(reasoning.records.map((record) => record.stepNumber)).toEqual([1, 2, 3]);
      const rest = await store.listReasoning(runId, {
        limit: 3,
        ...(reasoning.cursor ? { cursor: reasoning.cursor } : {}),
      });
      expect(rest.records.map((record) => record.stepNumber)).toEqual([4]);
      expect(rest.cursor).toBeNull();
      // A cursor of the reasoning partition is not a cursor of the run's records, nor the other way round.
      await expect(store.listRunRecords(runId, { cursor: reasoning.cursor ?? '' })).rejects.toMatchObject({
        code: 'CORRUPT_ITEM',
      });
      const first = await store.listRunRecords(runId, { limit: 3 });
      expect(first.records.map((record) => record.entity)).toEqual(['run', 'agent_step', 'agent_step']);
      const second = await store.listRunRecords(runId, {
        limit: 3,
        ...(first.cursor === null ? {} : { cursor: first.cursor }),
      });
      expect(second.records.map((record) => record.entity)).toEqual(['agent_step', 'agent_step']);
      expect(second.cursor).toBeNull();
    });

    it('keeps raw reasoning in its own partition with its own retention', async () => {
      const { audit, store, rawItems } = await make({ reasoningRetentionDays: 30 });
      const runId = newRunId();
      await start(store, runId);
      await audit.onModelStep(stepEvent(runId, 1));
      await audit.flush();
      const items = await rawItems(runId);
      const reasoning = items.filter((item) => item.entity === 'agent_reasoning_audit');
      expect(reasoning.map((item) => [item.pk, item.sk])).toEqual([[`REASONING#${runId}`, 'STEP#0001']]);
      expect(reasoning[0]?.ttl).toBe(Math.floor(STORE_T0 / 1_000) + 30 * 86_400);
      const step = items.find((item) => item.entity === 'agent_step');
      expect(step?.pk).toBe(`RUN#${runId}`);
      expect(step?.ttl).toBe(Math.floor(STORE_T0 / 1_000) + 90 * 86_400);
      expect(JSON.stringify(step)).not.toContain('先查看');
    });

    it('keeps the pseudonym map sealed in its own partition with the reasoning’s retention, and never in the records', async () => {
      const { audit, store, rawItems } = await make({ reasoningRetentionDays: 30 });
      const runId = newRunId();
      await start(store, runId);
      const masking = createMaskingSession({ mode: 'identifiers', secret: CONTRACT_SECRET }, runId);
      masking.maskText('用户 alice@example.cn 手机 13812345678');
      let sequence = 0;
      for (const batch of sealNewPseudonyms(masking, { runId, sessionId: 'session-1' }, () => ++sequence)) {
        await audit.onPseudonyms(batch);
      }
      await audit.onToolInvocation(toolEvent(runId, 'call_01_a'));
      await audit.flush();
      const items = await rawItems(runId);
      const maps = items.filter((item) => item.entity === 'pseudonym_map');
      expect(maps.map((item) => [item.pk, item.sk])).toEqual([[`PSEUDONYMS#${runId}`, 'MAP#0001']]);
      expect(maps[0]?.ttl).toBe(Math.floor(STORE_T0 / 1_000) + 30 * 86_400);
      expect(JSON.stringify(items)).not.toContain('alice@example.cn');
      expect(JSON.stringify(items)).not.toContain('13812345678');
      const { records } = await allRecords(store, runId, true);
      expect(records.some((record) => (record as { entity: string }).entity === 'pseudonym_map')).toBe(false);
      const page = await store.listPseudonyms(runId);
      expect(page.cursor).toBeNull();
      const entries = openPseudonymBatches(CONTRACT_SECRET, runId, page.records);
      expect(entries.map((entry) => [entry.kind, entry.value])).toEqual([
        ['email', 'alice@example.cn'],
        ['phone', '13812345678'],
      ]);
      expect(() => openPseudonymBatches(`${CONTRACT_SECRET}-other`, runId, page.records)).toThrow();
      expect(() => openPseudonymBatches(CONTRACT_SECRET, 'another-run', page.records)).toThrow();
      expect((await store.listPseudonyms('another-run')).records).toEqual([]);
    });

    it('keys tool call ids the harness refused apart, so no model-chosen id can take a store key', async () => {
      const { audit, store, rawItems } = await make();
      const runId = newRunId();
      await start(store, runId);
      await audit.onToolInvocation(toolEvent(runId, 'c1'));
      // The id a model might choose to collide with the store's own key for a reused id:
      await audit.onToolInvocation(
        toolEvent(runId, 'c1#REUSED#001', { disposition: 'REJECTED', status: null, code: 'INVALID_TOOL_CALL_ID' }),
      );
      await audit.onToolInvocation(
        toolEvent(runId, 'c1', { disposition: 'REJECTED', status: null, code: 'DUPLICATE_TOOL_CALL_ID' }),
      );
      await audit.onToolInvocation(toolEvent(runId, 'x'.repeat(150_000), { code: 'SOMETHING' }));
      await audit.flush();
      const keys = (await rawItems(runId))
        .filter((item) => item.entity === 'tool_invocation')
        .map((item) => [item.sk, String(item.tool_call_id).length])
        .sort(([a], [b]) => (String(a) < String(b) ? -1 : 1));
      expect(keys).toEqual([
        ['TOOL#c1', 2],
        ['TOOL#c1#REUSED#001', 2],
        ['TOOLID#INVALID#0001', 13],
        ['TOOLID#INVALID#0002', 200],
      ]);
    });

    it('bounds what a provider names in a step: model id, finish reason, a round of 500 tool calls', async () => {
      const { audit, store, rawItems } = await make();
      const runId = newRunId();
      await start(store, runId);
      const calls = Array.from({ length: 500 }, (_, index) => ({
        toolCallId: `call_${index}`,
        toolName: 'query_logs',
      }));
      await audit.onModelStep(
        stepEvent(runId, 1, { modelId: 'm'.repeat(100_000), finishReason: 'f'.repeat(100_000), toolCalls: calls }),
      );
      await audit.flush();
      const step = (await rawItems(runId)).find((item) => item.entity === 'agent_step');
      expect(String(step?.model_id)).toHaveLength(200);
      expect(String(step?.finish_reason)).toHaveLength(64);
      expect(step?.tool_calls).toHaveLength(ITEM_CAPS.stepToolCalls);
      expect(step?.tool_calls_total).toBe(500);
    });

    it('stores lone surrogates a model wrote as U+FFFD, so no write can fail on text with no UTF-8 form', async () => {
      const { audit, store, rawItems } = await make();
      const runId = newRunId();
      await start(store, runId);
      await audit.onModelStep(stepEvent(runId, 1, { reasoningContent: '推理\ud800结束', assistantText: '\udfff' }));
      await audit.onToolInvocation(
        toolEvent(runId, 'bad\ud800id', { disposition: 'REJECTED', status: null, code: 'INVALID_TOOL_CALL_ID' }),
      );
      const outcome = publishedOutcome();
      const draft = { ...outcome.draft, conclusion: '结论\ud83d' } as typeof outcome.draft;
      await store.completeRun(runId, { ...outcome, draft });
      await audit.flush();
      const items = await rawItems(runId);
      const text = JSON.stringify(items);
      expect(items.every((item) => JSON.stringify(item) === JSON.stringify(JSON.parse(JSON.stringify(item))))).toBe(
        true,
      );
      expect(text).not.toMatch(/\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f])/i);
      expect(items.find((item) => item.entity === 'agent_reasoning_audit')?.reasoning_content).toBe('推理\ufffd结束');
    });

    it('puts a ttl from the retention setting on every item of a run', async () => {
      const { audit, store, rawItems } = await make();
      const runId = newRunId();
      await start(store, runId);
      await audit.onModelStep(stepEvent(runId, 1));
      await audit.onToolInvocation(toolEvent(runId, 'call_01_a'));
      await store.completeRun(runId, publishedOutcome());
      await audit.flush();
      const items = await rawItems(runId);
      expect(items).toHaveLength(4);
      const expected = Math.floor(STORE_T0 / 1_000) + 90 * 86_400;
      expect(items.map((item) => [item.sk, item.ttl, item.schema_version])).toEqual(
        items.map((item) => [item.sk, expected, 1]),
      );
      expect(items.every((item) => typeof item.entity === 'string')).toBe(true);
    });

    it('records a scripted two-round diagnosis run by the harness: 1 run, 2 steps, 2 reasoning, the tool items', async () => {
      const { audit, store, rawItems } = await make();
      const runId = newRunId();
      await start(store, runId);
      const model = scriptedModel([
        toolRound([{ id: 'call_00_lCIkdHRa7AKmCG3TlxXz1061', name: 'query_logs', input: envelope(LOGS_INPUT) }], {
          reasoning: '查日志',
        }),
        textRound(draftAnswer(supportedDraft(['call_00_lCIkdHRa7AKmCG3TlxXz1061'])), { reasoning: '写结论' }),
      ]);
      const run = createRunContext({
        runId,
        sessionId: 'session-1',
        enterpriseId: 'E1001',
        deadlineAt: STORE_T0 + 60_000,
        now,
      });
      const result = await runDiagnosis(
        { run, query: 'E1001 订单失败' },
        { model, evidence: createFakeEvidence().evidence, audit },
      );
      expect(result.draft).not.toBeNull();
      await audit.flush();
      const items = await rawItems(runId);
      const count = (entity: string) => items.filter((item) => item.entity === entity).length;
      expect([count('run'), count('agent_step'), count('agent_reasoning_audit'), count('tool_invocation')]).toEqual([
        1, 2, 2, 1,
      ]);
      expect(items.find((item) => item.entity === 'tool_invocation')?.sk).toBe('TOOL#call_00_lCIkdHRa7AKmCG3TlxXz1061');
    });
  });
}
