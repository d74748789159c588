/**
 * Provider profiles: what the Diagnosis Agent needs to know about an OpenAI-compatible chat-completions provider
 * that its base URL and model id do not say. `DIAGNOSIS_MODEL_PROFILE` picks the agent's, `SEMANTIC_GUARD_MODEL_PROFILE`
 * the judge's. Every fact below is taken from the provider's own documentation (pages cited per profile, read on
 * 2026-12-01 through the project's stored copies of them); prices change, so cost figures say which profile priced them.
 *
 * What a profile decides:
 * - `draftFormat`: how the forced Draft round (the one round that may call no tool) asks for JSON: `json-schema` sends
 *   `response_format: {type: "json_schema", json_schema: {schema: <the Draft's JSON Schema>, strict: true}}`,
 *   `json-object` sends `response_format: {type: "json_object"}`, `none` sends nothing. Tool rounds never carry a
 *   `response_format` (not every provider documents JSON mode together with tools). The answer is parsed as strictly
 *   either way: JSON mode makes a fenced Draft unlikely, never acceptable.
 * - `reasoning`: where the provider returns the model's reasoning (`@ai-sdk/openai-compatible` reads
 *   `message.reasoning_content`, else `message.reasoning`), or `none` when it does not return it.
 * - `finalRoundKeepsTools`: how the forced last round (a run stopped on a budget) forbids tool calls. `true`: it
 *   re-sends the earlier rounds' `tools` unchanged with `tool_choice: "none"` (and the Draft's `response_format`), so
 *   its prompt starts with the previous round's whole request and the provider's prefix cache serves it (issue #37);
 *   only where the provider documents `tool_choice: "none"` and JSON mode in one request. `false`: it sends no
 *   `tools` (the prefix changes right after the instructions: nothing of it is cached).
 * - `cachedTokens`: whether usage reports prompt-cache hits (`prompt_tokens_details.cached_tokens`, DeepSeek's
 *   `prompt_cache_hit_tokens`).
 * - `price`: USD per million tokens for cost figures (input served from cache, other input, output), or `null` when
 *   the profile has no list price.
 */

/** The profile names `DIAGNOSIS_MODEL_PROFILE` / `SEMANTIC_GUARD_MODEL_PROFILE` accept. */
export const MODEL_PROFILE_NAMES = ['deepseek', 'openai', 'qwen', 'openai-compatible'] as const;
export type ModelProfileName = (typeof MODEL_PROFILE_NAMES)[number];

/** How the Draft round asks the provider for JSON. */
export const DRAFT_FORMATS = ['json-schema', 'json-object', 'none'] as const;
export type DraftFormat = (typeof DRAFT_FORMATS)[number];

export interface ModelPrice {
  /** USD per million input tokens served from the provider's prompt cache. */
  cachedInput: number;
  /** USD per million other input tokens. */
  input: number;
  /** USD per million output tokens (reasoning included). */
  output: number;
}

export interface ModelProfile {
  name: ModelProfileName;
  /** Who serves it, for help texts and the docs. */
  provider: string;
  /** The chat-completions base URL when DIAGNOSIS_MODEL_BASE_URL is unset. */
  baseUrl: string;
  /** The model id when DIAGNOSIS_MODEL_ID is unset; `null`: the id must be given (a local server's own names). */
  defaultModelId: string | null;
  /** The provider documents `response_format: {type: "json_object"}`. */
  jsonObject: boolean;
  /** The provider documents `response_format: {type: "json_schema"}` (structured outputs). */
  jsonSchema: boolean;
  /** What the Draft round sends (see the module comment). */
  draftFormat: DraftFormat;
  /** Where reasoning comes back. */
  reasoning: 'reasoning_content' | 'reasoning_content or reasoning' | 'none';
  /** The forced last round keeps the tools with `tool_choice: "none"` (see the module comment). */
  finalRoundKeepsTools: boolean;
  /** Whether usage reports prompt-cache hits. */
  cachedTokens: boolean;
  /** List prices for cost figures (of `defaultModelId`), or `null`. */
  price: ModelPrice | null;
  /** One line on the price: which model, which period, where it comes from. */
  priceNote: string;
  /** The documentation pages the facts come from. */
  sources: readonly string[];
}

export const MODEL_PROFILES: Readonly<Record<ModelProfileName, ModelProfile>> = Object.freeze({
  // https://api-docs.deepseek.com/guides/json_mode ("JSON Output": response_format {type: json_object}, the prompt
  // must contain the word "json", content may come back blank); https://api-docs.deepseek.com/quick_start/pricing
  // (Json Output and Tool Calls on both V4 models, no JSON Schema outputs; thinking mode returns reasoning_content;
  // usage carries prompt_cache_hit_tokens / prompt_cache_miss_tokens; Flash at peak hours: cache hit $0.006, cache
  // miss $0.30, output $1.20 per million, off-peak half that; the legacy id deepseek-v4-flash is served by the
  // current Flash model at Flash prices); https://api-docs.deepseek.com/api/create-chat-completion (`tool_choice`:
  // "none" | "auto" | "required" | a named tool, beside `tools` and `response_format` in the same request body).
  deepseek: {
    name: 'deepseek',
    provider: 'DeepSeek API',
    baseUrl: 'https://api.deepseek.com/v1',
    defaultModelId: 'deepseek-v4-flash',
    jsonObject: true,
    jsonSchema: false,
    draftFormat: 'json-object',
    reasoning: 'reasoning_content',
    finalRoundKeepsTools: true,
    cachedTokens: true,
    price: { cachedInput: 0.006, input: 0.3, output: 1.2 },
    priceNote: 'DeepSeek Flash at peak hours (off-peak is half), api-docs.deepseek.com/quick_start/pricing',
    sources: ['https://api-docs.deepseek.com/guides/json_mode', 'https://api-docs.deepseek.com/quick_start/pricing'],
  },
  // https://platform.openai.com/docs/guides/structured-outputs (response_format json_schema with strict: true, and
  // JSON mode json_object, on chat completions); chat completions return no reasoning text (reasoning models report
  // only completion_tokens_details.reasoning_tokens); prompt caching reports prompt_tokens_details.cached_tokens;
  // https://developers.openai.com/api/docs/pricing (gpt-5.4-mini: input $0.75, cached input $0.075, output $4.50);
  // https://platform.openai.com/docs/api-reference/chat/create (`tool_choice: "none"` with `tools`; structured
  // outputs beside function tools). NOTE: OpenAI caches a `json_schema` as part of the prompt, so its forced last
  // round is not cache-stable either way; keeping the tools costs nothing there.
  openai: {
    name: 'openai',
    provider: 'OpenAI API',
    baseUrl: 'https://api.openai.com/v1',
    defaultModelId: 'gpt-5.4-mini',
    jsonObject: true,
    jsonSchema: true,
    draftFormat: 'json-schema',
    reasoning: 'none',
    finalRoundKeepsTools: true,
    cachedTokens: true,
    price: { cachedInput: 0.075, input: 0.75, output: 4.5 },
    priceNote: 'gpt-5.4-mini list price, developers.openai.com/api/docs/pricing',
    sources: [
      'https://platform.openai.com/docs/guides/structured-outputs',
      'https://developers.openai.com/api/docs/pricing',
    ],
  },
  // https://help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope (base URL
  // https://dashscope.aliyuncs.com/compatible-mode/v1; international: dashscope-intl.aliyuncs.com);
  // https://www.alibabacloud.com/help/en/model-studio/qwen-structured-output (json_object on most Qwen models, the
  // prompt must contain "JSON"; json_schema with strict on qwen-plus / qwen-flash / qwen3-max snapshots; both in
  // non-thinking mode only); https://help.aliyun.com/en/model-studio/deep-thinking (enable_thinking, reasoning in
  // reasoning_content). Context cache hits are reported as prompt_tokens_details.cached_tokens. No price is given:
  // Model Studio prices qwen-plus in tiers by input length and region, so set the eval's --price for your contract.
  qwen: {
    name: 'qwen',
    provider: 'Alibaba Cloud Model Studio (DashScope, OpenAI-compatible mode)',
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    defaultModelId: 'qwen-plus',
    jsonObject: true,
    jsonSchema: true,
    draftFormat: 'json-schema',
    reasoning: 'reasoning_content',
    // NOTE: Model Studio documents structured output and function calling separately, never in one request.
    finalRoundKeepsTools: false,
    cachedTokens: true,
    price: null,
    priceNote: 'tiered by input length and region (Model Studio console): no single list price',
    sources: [
      'https://help.aliyun.com/zh/model-studio/compatibility-of-openai-with-dashscope',
      'https://www.alibabacloud.com/help/en/model-studio/qwen-structured-output',
      'https://help.aliyun.com/en/model-studio/deep-thinking',
    ],
  },
  // A server of your own: vLLM (https://docs.vllm.ai/en/latest/features/structured_outputs/: response_format
  // json_object and json_schema; reasoning_content with --reasoning-parser,
  // https://docs.vllm.ai/en/v0.8.3/features/reasoning_outputs.html) or Ollama
  // (https://docs.ollama.com/api/openai-compatibility: JSON mode through response_format, base URL
  // http://localhost:11434/v1). JSON mode (json_object) is the one both document; neither reports cached tokens by
  // default; there is no per-token bill.
  'openai-compatible': {
    name: 'openai-compatible',
    provider: 'an OpenAI-compatible server of your own (vLLM, Ollama)',
    baseUrl: 'http://localhost:8000/v1',
    defaultModelId: null,
    jsonObject: true,
    jsonSchema: true,
    draftFormat: 'json-object',
    reasoning: 'reasoning_content or reasoning',
    // NOTE: Ollama's OpenAI compatibility does not list `tool_choice`: the last round offers no tools.
    finalRoundKeepsTools: false,
    cachedTokens: false,
    price: { cachedInput: 0, input: 0, output: 0 },
    priceNote: 'self-hosted: no per-token bill (your hardware is the cost)',
    sources: [
      'https://docs.vllm.ai/en/latest/features/structured_outputs/',
      'https://docs.vllm.ai/en/v0.8.3/features/reasoning_outputs.html',
      'https://docs.ollama.com/api/openai-compatibility',
    ],
  },
});

/** The profile of that name. */
export function modelProfile(name: ModelProfileName): ModelProfile {
  return MODEL_PROFILES[name];
}

/**
 * The Draft's JSON Schema as a provider's structured outputs accept it: without `$schema` and without the length
 * and count bounds that strict modes reject (OpenAI's strict mode compiles a grammar from a subset of JSON Schema).
 * NOTE: the bounds are not lost: the strict parser checks the whole schema on the answer, whatever the provider did.
 */
export function providerJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(providerJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    // NOTE: the keys of `properties` are the Draft's field names, not keywords: only their schemas are walked.
    kept[key] =
      key === 'properties' && value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, providerJsonSchema(inner)]))
        : providerJsonSchema(value);
  }
  return kept;
}

const DROPPED_KEYWORDS = new Set(['$schema', 'minLength', 'maxLength', 'minItems', 'maxItems']);
