import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
} from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

export interface RoundOptions {
  reasoning?: string;
  text?: string;
  inputTokens?: number;
  outputTokens?: number;
  finishReason?: LanguageModelV4GenerateResult['finishReason']['unified'];
  /** A provider that reports no usage at all: the result has no `usage` (some OpenAI-compatible servers). */
  omitUsage?: boolean;
}

export interface ScriptedCall {
  id: string;
  name: string;
  /** An object is sent as JSON; a string is sent as is (to script unparseable arguments). */
  input: unknown;
}

/** A model round that requests tool calls, as a provider would return it. */
export function toolRound(calls: ScriptedCall[], options: RoundOptions = {}): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = [];
  if (options.reasoning !== undefined) content.push({ type: 'reasoning', text: options.reasoning });
  if (options.text !== undefined) content.push({ type: 'text', text: options.text });
  for (const call of calls) {
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.name,
      input: typeof call.input === 'string' ? call.input : JSON.stringify(call.input),
    });
  }
  return result(content, options, 'tool-calls');
}

/** A model round that answers with text only (the final Draft, or anything a model might write instead). */
export function textRound(text: string, options: RoundOptions = {}): LanguageModelV4GenerateResult {
  const content: LanguageModelV4Content[] = [];
  if (options.reasoning !== undefined) content.push({ type: 'reasoning', text: options.reasoning });
  content.push({ type: 'text', text });
  return result(content, options, 'stop');
}

function result(
  content: LanguageModelV4Content[],
  options: RoundOptions,
  defaultFinish: LanguageModelV4GenerateResult['finishReason']['unified'],
): LanguageModelV4GenerateResult {
  const inputTokens = options.inputTokens ?? 100;
  const outputTokens = options.outputTokens ?? 20;
  if (options.omitUsage === true) {
    const finishReason = options.finishReason ?? defaultFinish;
    // NOTE: the type says `usage` is always there; a provider's result may still lack it, which is the point.
    return {
      content,
      finishReason: { unified: finishReason, raw: finishReason },
      warnings: [],
    } as unknown as LanguageModelV4GenerateResult;
  }
  return {
    content,
    finishReason: { unified: options.finishReason ?? defaultFinish, raw: options.finishReason ?? defaultFinish },
    usage: {
      inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: outputTokens, text: outputTokens, reasoning: undefined },
    },
    warnings: [],
  };
}

export type ScriptStep =
  | LanguageModelV4GenerateResult
  | Error
  | ((
      call: LanguageModelV4CallOptions,
      index: number,
    ) => LanguageModelV4GenerateResult | Promise<LanguageModelV4GenerateResult>);

/**
 * A fake model that plays a script, one entry per round; an Error entry makes that round's provider call fail.
 * Running past the script's end fails loudly, so a test never passes on an unplanned round.
 */
export function scriptedModel(script: ScriptStep[], modelId = 'scripted-model'): MockLanguageModelV4 {
  let index = 0;
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    modelId,
    doGenerate: async (call) => {
      const step = script[index];
      const current = index;
      index += 1;
      if (step === undefined) throw new Error(`scripted model has no round ${current + 1}`);
      if (step instanceof Error) throw step;
      if (typeof step === 'function') return step(call, current);
      return step;
    },
  });
  return model;
}

/** The observations (tool results) the model received in the prompt of one call, in order. */
export function observationsIn(prompt: LanguageModelV4Prompt): Record<string, unknown>[] {
  const observations: Record<string, unknown>[] = [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      if (output.type === 'json') observations.push(output.value as Record<string, unknown>);
      else observations.push({ sdk_output: output });
    }
  }
  return observations;
}

/**
 * The names of the tools the model may call in one provider call: none in a round sent with `toolChoice: 'none'`
 * (the harness's final round keeps the tools in the request for the prompt cache, and forbids calling them).
 */
export function toolsOffered(call: LanguageModelV4CallOptions): string[] {
  if (call.toolChoice?.type === 'none') return [];
  return (call.tools ?? []).map((tool) => tool.name);
}
