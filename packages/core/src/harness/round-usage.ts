import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
} from '@ai-sdk/provider';
import type { RunUsage } from '../run/run-context.ts';
import { utf8Bytes } from '../run/utf8.ts';
import type { ModelStepEvent } from '../store/audit-hook.ts';
import { estimatedTokens } from './budget-policy.ts';

type StepUsage = ModelStepEvent['usage'];

/** A round's usage as the harness counts it, and whether any of it is the harness's estimate. */
export interface RoundUsage extends StepUsage {
  estimated: boolean;
}

/**
 * The tokens of one round as the budget counts them and the audit records them: what the provider reported, and for
 * each side it did not report (no `usage`, or a total of 0 — a prompt is never 0 tokens, nor non-empty output), an
 * estimate from the sizes of what was sent and received ({@link estimatedTokens}). NOTE: without this a provider
 * that omits usage would make the token budget a no-op. The budget middleware and the audit middleware both call
 * it with the same request and response, so they always agree.
 */
export function roundUsage(
  params: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools'>,
  result: LanguageModelV4GenerateResult,
): RoundUsage {
  const reported = readUsage(result);
  const inputEstimate =
    reported.inputTokens > 0 ? 0 : estimatedTokens(utf8Bytes(JSON.stringify([params.prompt, params.tools ?? []])));
  const outputEstimate = reported.outputTokens > 0 ? 0 : estimatedTokens(outputBytes(result.content));
  return {
    ...reported,
    inputTokens: reported.inputTokens + inputEstimate,
    outputTokens: reported.outputTokens + outputEstimate,
    estimated: inputEstimate > 0 || outputEstimate > 0,
  };
}

/**
 * Adds one model call (an agent round or the judge's call) to the run's usage, as {@link roundUsage} counted it;
 * returns the call's tokens. The one place a call's tokens reach the run's ledger.
 */
export function addRoundUsage(usage: RunUsage, round: RoundUsage): number {
  const tokens = round.inputTokens + round.outputTokens;
  usage.inputTokens += round.inputTokens;
  usage.outputTokens += round.outputTokens;
  usage.totalTokens += tokens;
  usage.cachedInputTokens += round.cachedInputTokens ?? 0;
  if (round.estimated) usage.estimatedTokenRounds += 1;
  return tokens;
}

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

/** UTF-8 bytes of what the model produced: its reasoning, its text and its tool calls (names and inputs). */
function outputBytes(content: LanguageModelV4Content[]): number {
  let bytes = 0;
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') bytes += utf8Bytes(part.text);
    else if (part.type === 'tool-call') bytes += utf8Bytes(part.toolName) + utf8Bytes(part.input);
  }
  return bytes;
}

function nonNegative(value: number | undefined): number {
  return value !== undefined && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
