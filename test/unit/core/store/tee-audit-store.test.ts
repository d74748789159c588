import { describe, expect, it } from 'vitest';
import type { ModelStepEvent, ToolInvocationEvent } from '../../../../packages/core/src/store/audit-hook.ts';
import { createMemoryStores } from '../../../../packages/core/src/store/memory/memory-stores.ts';
import { teeAuditStore } from '../../../../packages/core/src/store/tee-audit-store.ts';

const step = (stepNumber: number) =>
  ({
    runId: 'run-1',
    sessionId: 's',
    stepNumber,
    toolCalls: [],
    usage: { inputTokens: 1, outputTokens: 1 },
  }) as unknown as ModelStepEvent;
const tool = (toolCallId: string) =>
  ({
    runId: 'run-1',
    sessionId: 's',
    stepNumber: 1,
    toolCallId,
    toolName: 'query_logs',
  }) as unknown as ToolInvocationEvent;

describe('teeAuditStore', () => {
  it('hands every event to the store first and then to the listener, in the order the harness audited them', async () => {
    const order: string[] = [];
    const store = {
      ...createMemoryStores(),
      async onModelStep(event: ModelStepEvent) {
        order.push(`store step ${event.stepNumber}`);
      },
      async onToolInvocation(event: ToolInvocationEvent) {
        order.push(`store tool ${event.toolCallId}`);
      },
    };
    const tee = teeAuditStore(store, {
      onModelStep: (event) => order.push(`view step ${event.stepNumber}`),
      onToolInvocation: (event) => order.push(`view tool ${event.toolCallId}`),
    });
    await tee.onModelStep(step(1));
    await tee.onToolInvocation(tool('call_a'));
    await tee.onModelStep(step(2));
    expect(order).toEqual([
      'store step 1',
      'view step 1',
      'store tool call_a',
      'view tool call_a',
      'store step 2',
      'view step 2',
    ]);
  });

  it('keeps the run going when the listener throws, and still fails it when the store does', async () => {
    const failing = {
      ...createMemoryStores(),
      onModelStep: async (_event: ModelStepEvent): Promise<void> => {
        throw new Error('write failed');
      },
    };
    const broken = {
      onModelStep: () => {
        throw new Error('view broke');
      },
    };
    const quiet = { ...createMemoryStores(), onModelStep: async (_event: ModelStepEvent) => undefined };
    await expect(teeAuditStore(quiet, broken).onModelStep(step(1))).resolves.toBeUndefined();
    await expect(teeAuditStore(failing, {}).onModelStep(step(1))).rejects.toThrow('write failed');
  });

  it('keeps the store’s other methods working', async () => {
    const tee = teeAuditStore(createMemoryStores(), {});
    await tee.startRun({ runId: 'run-2', sessionId: 's', enterpriseId: 'E1', query: 'q', continueSession: false });
    expect((await tee.getRun('run-2'))?.status).toBe('RUNNING');
  });
});
