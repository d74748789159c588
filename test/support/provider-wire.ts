/**
 * Chat-completion responses shaped as each provider profile documents its wire format (synthetic: written from the
 * providers' documentation, not recorded; DeepSeek's come from the recorded fixtures in test/fixtures/deepseek-wire).
 * Each builder gives a tool-call round and a final text round, with the usage fields that provider reports.
 */
import type { ModelProfileName } from '@diagnosis/core/config';
import { type DeepSeekResponse, wireText, wireToolCalls } from './deepseek-server.ts';

export interface ProfileWire {
  toolCalls(calls: { id: string; name: string; arguments: unknown }[]): DeepSeekResponse;
  text(content: string): DeepSeekResponse;
}

type Message = DeepSeekResponse['choices'][number]['message'];

function completion(
  model: string,
  id: string,
  message: Message,
  finishReason: string,
  usage: Record<string, unknown>,
  extra: Record<string, unknown> = {},
): DeepSeekResponse {
  return {
    id,
    object: 'chat.completion',
    created: 1_796_000_000,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage,
    ...extra,
  };
}

function toolCallsOf(calls: { id: string; name: string; arguments: unknown }[]) {
  return calls.map((call, index) => ({
    index,
    id: call.id,
    type: 'function' as const,
    function: {
      name: call.name,
      arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
    },
  }));
}

/**
 * OpenAI chat completions (platform.openai.com/docs/api-reference/chat/object): `content: null` beside tool calls,
 * `refusal: null`, no reasoning text, usage with `prompt_tokens_details.cached_tokens` and
 * `completion_tokens_details.reasoning_tokens`.
 */
const openai: ProfileWire = {
  toolCalls: (calls) =>
    completion(
      'gpt-5.4-mini-2026-03-17',
      'chatcmpl-openai-tool',
      { role: 'assistant', content: null as unknown as string, tool_calls: toolCallsOf(calls) },
      'tool_calls',
      {
        prompt_tokens: 1_200,
        completion_tokens: 40,
        total_tokens: 1_240,
        prompt_tokens_details: { cached_tokens: 1_024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
      },
      { service_tier: 'default', system_fingerprint: null },
    ),
  text: (content) =>
    completion(
      'gpt-5.4-mini-2026-03-17',
      'chatcmpl-openai-text',
      { role: 'assistant', content },
      'stop',
      {
        prompt_tokens: 1_500,
        completion_tokens: 300,
        total_tokens: 1_800,
        prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 128, audio_tokens: 0 },
      },
      { service_tier: 'default', system_fingerprint: null },
    ),
};

/**
 * DashScope's OpenAI-compatible mode (help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope):
 * `chatcmpl-` ids, `reasoning_content` in thinking mode, usage with `prompt_tokens_details.cached_tokens`.
 */
const qwen: ProfileWire = {
  toolCalls: (calls) =>
    completion(
      'qwen-plus',
      'chatcmpl-qwen-tool',
      { role: 'assistant', content: '', reasoning_content: '先查日志。', tool_calls: toolCallsOf(calls) },
      'tool_calls',
      {
        prompt_tokens: 1_100,
        completion_tokens: 50,
        total_tokens: 1_150,
        prompt_tokens_details: { cached_tokens: 512 },
      },
      { system_fingerprint: null },
    ),
  text: (content) =>
    completion(
      'qwen-plus',
      'chatcmpl-qwen-text',
      { role: 'assistant', content },
      'stop',
      {
        prompt_tokens: 1_400,
        completion_tokens: 280,
        total_tokens: 1_680,
        prompt_tokens_details: { cached_tokens: 0 },
      },
      { system_fingerprint: null },
    ),
};

/**
 * vLLM's OpenAI-compatible server (docs.vllm.ai): `chatcmpl-` ids, `reasoning_content` with a reasoning parser,
 * plain usage without token details.
 */
const openaiCompatible: ProfileWire = {
  toolCalls: (calls) =>
    completion(
      'Qwen/Qwen3-8B',
      'chatcmpl-vllm-tool',
      { role: 'assistant', content: '', reasoning_content: 'check the logs first', tool_calls: toolCallsOf(calls) },
      'tool_calls',
      { prompt_tokens: 900, completion_tokens: 45, total_tokens: 945 },
    ),
  text: (content) =>
    completion('Qwen/Qwen3-8B', 'chatcmpl-vllm-text', { role: 'assistant', content }, 'stop', {
      prompt_tokens: 1_300,
      completion_tokens: 260,
      total_tokens: 1_560,
    }),
};

const deepseek: ProfileWire = {
  toolCalls: (calls) => wireToolCalls(calls, { reasoning: '先查日志。' }),
  text: (content) => wireText(content),
};

export const PROFILE_WIRES: Readonly<Record<ModelProfileName, ProfileWire>> = {
  deepseek,
  openai,
  qwen,
  'openai-compatible': openaiCompatible,
};
