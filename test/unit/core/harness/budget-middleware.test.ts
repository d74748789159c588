import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { createBudgetMiddleware, createCollectionState, HarnessStop, runLedger } from '@diagnosis/core/harness';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it, vi } from 'vitest';
import { T0, testRun } from '../../../support/run-fixtures.ts';
import { textRound } from '../../../support/scripted-model.ts';

function setup(overrides: Parameters<typeof testRun>[0] = {}) {
  const run = testRun(overrides);
  const ledger = runLedger(run);
  const middleware = createBudgetMiddleware({
    run,
    collection: createCollectionState(),
    runSignal: new AbortController().signal,
  });
  const doGenerate = vi.fn(async (): Promise<LanguageModelV4GenerateResult> => textRound('{}'));
  const call = () =>
    middleware.wrapGenerate?.({
      doGenerate,
      doStream: async () => {
        throw new Error('not used');
      },
      params: { prompt: [] },
      model: new MockLanguageModelV4(),
    });
  return { run, ledger, call, doGenerate };
}

describe('createBudgetMiddleware', () => {
  it('rejects a round beyond the model-call budget before it reaches the provider', async () => {
    const { ledger, call, doGenerate, run } = setup({ limits: { maxModelCalls: 2 } });
    ledger.usage.modelCalls = 2;
    await expect(call()).rejects.toEqual(new HarnessStop('MODEL_CALL_BUDGET'));
    expect(doGenerate).not.toHaveBeenCalled();
    expect(run.usage().modelCalls).toBe(2);
  });

  it('rejects a round when the token budget is used up', async () => {
    const { ledger, call, doGenerate } = setup({ limits: { maxTotalTokens: 500 } });
    ledger.usage.totalTokens = 500;
    await expect(call()).rejects.toMatchObject({ reason: 'TOKEN_BUDGET' });
    expect(doGenerate).not.toHaveBeenCalled();
  });

  it('rejects a round after the deadline', async () => {
    const { call, doGenerate } = setup({ now: () => T0 + 60_000 });
    await expect(call()).rejects.toMatchObject({ reason: 'DEADLINE' });
    expect(doGenerate).not.toHaveBeenCalled();
  });

  it('counts the round and records the usage when the provider answers', async () => {
    const { call, run } = setup();
    await call();
    expect(run.usage()).toMatchObject({ modelCalls: 1, inputTokens: 100, outputTokens: 20, totalTokens: 120 });
  });

  it('counts the input tokens the provider served from its cache, from DeepSeek’s own field too', async () => {
    const { call, doGenerate, run } = setup();
    const cached = textRound('{}');
    doGenerate.mockResolvedValueOnce({
      ...cached,
      usage: { ...cached.usage, inputTokens: { ...cached.usage.inputTokens, cacheRead: 60 } },
    });
    doGenerate.mockResolvedValueOnce({
      ...cached,
      usage: { ...cached.usage, raw: { prompt_cache_hit_tokens: 70 } },
    });
    await call();
    await call();
    expect(run.usage()).toMatchObject({ modelCalls: 2, inputTokens: 200, cachedInputTokens: 130 });
  });

  it('counts a round whose provider call failed, and wraps the failure', async () => {
    const { call, doGenerate, run } = setup();
    doGenerate.mockRejectedValueOnce(new Error('socket hang up'));
    await expect(call()).rejects.toMatchObject({ name: 'ModelCallFailure' });
    expect(run.usage().modelCalls).toBe(1);
  });
});
