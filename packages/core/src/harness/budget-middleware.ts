import type { LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { LanguageModelMiddleware } from 'ai';
import type { RunContext, RunLedger } from '../run/run-context.ts';
import { truncateChars, utf8Bytes } from '../run/utf8.ts';
import { type AuditHook, type ContentSource, MAX_AUDIT_TEXT_CHARS, type ModelStepEvent } from '../store/audit-hook.ts';
import type { CollectionState } from './collection-state.ts';
import { AuditFailure, HarnessStop, ModelCallFailure } from './harness-signals.ts';

export interface BudgetMiddlewareOptions {
  run: RunContext;
  ledger: RunLedger;
  collection: CollectionState;
  /** The run's own signal: aborted at the deadline, on cancellation and on an audit failure. */
  runSignal: AbortSignal;
  audit: AuditHook | undefined;
}

/**
 * The harness's hold on every model round, built per run. Before the provider is reached it refuses the round when
 * the run is cancelled, past its deadline, or out of model calls or tokens; after the round it records usage and
 * the audited step. It never retries and never lets a provider failure pass as anything but a typed failure.
 */
export function createBudgetMiddleware(options: BudgetMiddlewareOptions): LanguageModelMiddleware {
  const { run, ledger, collection, runSignal, audit } = options;
  const { limits } = run;

  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      // NOTE: output can never exceed what is left of the token budget, whatever the model wants.
      const remaining = Math.max(1, limits.maxTotalTokens - ledger.usage.totalTokens);
      const maxOutputTokens = Math.min(params.maxOutputTokens ?? remaining, remaining);
      return { ...params, maxOutputTokens, abortSignal: runSignal };
    },
    wrapGenerate: async ({ doGenerate, model }) => {
      assertRoundAllowed();
      ledger.usage.modelCalls += 1;
      const stepNumber = ledger.usage.modelCalls;
      const startedAt = run.now();
      let result: LanguageModelV4GenerateResult;
      try {
        result = await doGenerate();
      } catch (error) {
        if (runSignal.aborted) throw runSignal.reason;
        throw new ModelCallFailure('provider call failed', { cause: error });
      }
      const endedAt = run.now();
      const usage = readUsage(result);
      ledger.usage.inputTokens += usage.inputTokens;
      ledger.usage.outputTokens += usage.outputTokens;
      ledger.usage.totalTokens += usage.inputTokens + usage.outputTokens;
      collection.lastRoundTokens = usage.inputTokens + usage.outputTokens;
      collection.observationBytesSinceRound = 0;

      if (audit !== undefined) {
        const event = buildStepEvent(result, {
          sessionId: run.sessionId,
          runId: run.runId,
          stepNumber,
          modelId: model.modelId,
          usage,
          startedAt,
          endedAt,
        });
        try {
          await audit.onModelStep(event);
        } catch (error) {
          throw new AuditFailure('model step audit failed', { cause: error });
        }
      }
      // A round that overran the token budget is discarded: no tool of it runs, no Draft of it is used.
      if (ledger.usage.totalTokens > limits.maxTotalTokens) throw new HarnessStop('TOKEN_BUDGET');
      return result;
    },
  };

  function assertRoundAllowed(): void {
    if (runSignal.aborted) throw runSignal.reason;
    if (run.now() >= run.deadlineAt) throw new HarnessStop('DEADLINE');
    if (ledger.usage.modelCalls >= limits.maxModelCalls) throw new HarnessStop('MODEL_CALL_BUDGET');
    if (ledger.usage.totalTokens >= limits.maxTotalTokens) throw new HarnessStop('TOKEN_BUDGET');
  }
}

type StepUsage = ModelStepEvent['usage'];

/** Usage as the provider reported it; DeepSeek's own cache-hit count is taken when the standard field lacks it. */
export function readUsage(result: LanguageModelV4GenerateResult): StepUsage {
  const input = result.usage?.inputTokens;
  const output = result.usage?.outputTokens;
  const raw = result.usage?.raw;
  const deepseekCacheHits = typeof raw?.prompt_cache_hit_tokens === 'number' ? raw.prompt_cache_hit_tokens : undefined;
  const cached =
    input?.cacheRead === undefined && deepseekCacheHits === undefined
      ? undefined
      : Math.max(input?.cacheRead ?? 0, deepseekCacheHits ?? 0);
  return {
    inputTokens: nonNegative(input?.total),
    outputTokens: nonNegative(output?.total),
    ...(output?.reasoning === undefined ? {} : { reasoningTokens: nonNegative(output.reasoning) }),
    ...(cached === undefined ? {} : { cachedInputTokens: cached }),
  };
}

function nonNegative(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function buildStepEvent(
  result: LanguageModelV4GenerateResult,
  base: Pick<ModelStepEvent, 'sessionId' | 'runId' | 'stepNumber' | 'modelId' | 'usage' | 'startedAt' | 'endedAt'>,
): ModelStepEvent {
  const reasoning = joinParts(result.content, 'reasoning');
  const plan = result.content
    .filter((part) => part.type === 'tool-call')
    .map((part) => `[tool_call ${part.toolCallId}] ${part.toolName} ${part.input}`);
  const text = joinParts(result.content, 'text');
  const assistant = [text, ...plan].filter((item) => item.length > 0).join('\n');
  const reasoningContent = truncateChars(reasoning, MAX_AUDIT_TEXT_CHARS);
  const assistantText = truncateChars(assistant, MAX_AUDIT_TEXT_CHARS);
  return {
    ...base,
    finishReason: result.finishReason.unified,
    reasoningContent,
    assistantText,
    contentSource: contentSource(reasoningContent.length > 0, assistantText.length > 0),
    contentBytes: utf8Bytes(reasoningContent) + utf8Bytes(assistantText),
    reasoningAvailable: reasoningContent.length > 0,
    truncated: reasoningContent.length < reasoning.length || assistantText.length < assistant.length,
    toolCalls: result.content.flatMap((part) =>
      part.type === 'tool-call' ? [{ toolCallId: part.toolCallId, toolName: part.toolName }] : [],
    ),
  };
}

function joinParts(content: LanguageModelV4Content[], type: 'reasoning' | 'text'): string {
  const joined = content.flatMap((part) => (part.type === type ? [part.text] : [])).join('');
  // NOTE: whitespace-only output counts as none; otherwise the provider's text is kept exactly as returned.
  return joined.trim().length === 0 ? '' : joined;
}

function contentSource(hasReasoning: boolean, hasAssistant: boolean): ContentSource {
  if (hasReasoning && hasAssistant) return 'PROVIDER_REASONING+ASSISTANT_TEXT';
  if (hasReasoning) return 'PROVIDER_REASONING';
  if (hasAssistant) return 'ASSISTANT_TEXT';
  return 'NONE';
}
