import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SEMANTIC_GUARD_TITLE } from '@diagnosis/core';

const FIXTURES = new URL('../../../test/fixtures/deepseek-wire/', import.meta.url);

/** A recorded DeepSeek chat-completion response (see test/fixtures/deepseek-wire/README.md). */
export function loadWireFixture(name: 'tool-call' | 'reasoning-and-text' | 'json-content' | 'truncated-reasoning') {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as DeepSeekResponse;
}

export interface DeepSeekResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: {
    index: number;
    message: {
      role: 'assistant';
      content: string;
      reasoning_content?: string;
      tool_calls?: { index: number; id: string; type: 'function'; function: { name: string; arguments: string } }[];
    };
    logprobs: null;
    finish_reason: string;
  }[];
  /** Absent when a server reports no usage (the token budget then runs on the harness's estimate). */
  usage?: Record<string, unknown>;
  system_fingerprint?: string;
}

export interface WireUsage {
  prompt: number;
  completion: number;
  reasoning?: number;
  cacheHit?: number;
}

function usage(tokens: WireUsage) {
  const cacheHit = tokens.cacheHit ?? 0;
  return {
    prompt_tokens: tokens.prompt,
    completion_tokens: tokens.completion,
    total_tokens: tokens.prompt + tokens.completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: tokens.reasoning ?? 0 },
    prompt_cache_hit_tokens: cacheHit,
    prompt_cache_miss_tokens: tokens.prompt - cacheHit,
  };
}

/** A tool-call round shaped exactly like the recorded `tool-call.json`: empty content, DeepSeek-style ids. */
export function wireToolCalls(
  calls: { id: string; name: string; arguments: unknown }[],
  options: { reasoning?: string; usage?: WireUsage } = {},
): DeepSeekResponse {
  const base = loadWireFixture('tool-call');
  const choice = base.choices[0];
  if (choice === undefined) throw new Error('fixture without choice');
  return {
    ...base,
    choices: [
      {
        ...choice,
        message: {
          role: 'assistant',
          content: '',
          reasoning_content: options.reasoning ?? choice.message.reasoning_content ?? '',
          tool_calls: calls.map((call, index) => ({
            index,
            id: call.id,
            type: 'function',
            function: {
              name: call.name,
              arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
            },
          })),
        },
      },
    ],
    usage: usage(options.usage ?? { prompt: 374, completion: 60, reasoning: 16 }),
  };
}

/** A final round shaped like `reasoning-and-text.json`: reasoning and content in one message. */
export function wireText(content: string, options: { reasoning?: string; usage?: WireUsage } = {}): DeepSeekResponse {
  const base = loadWireFixture('reasoning-and-text');
  const choice = base.choices[0];
  if (choice === undefined) throw new Error('fixture without choice');
  return {
    ...base,
    choices: [
      {
        ...choice,
        message: { role: 'assistant', content, reasoning_content: options.reasoning ?? '' },
        finish_reason: 'stop',
      },
    ],
    usage: usage(options.usage ?? { prompt: 97, completion: 131, reasoning: 113 }),
  };
}

/**
 * Which round of a scripted conversation a request asks for: the round after the one whose tool call the request's
 * newest tool result answers (0 when it carries none). NOTE: read from the newest call, not from a count of assistant
 * messages: once a run's history passes the harness's bound its judged rounds are folded away, and the count no
 * longer says how far the run is. A call no round made falls back to that count.
 */
export function scriptedRound(request: Record<string, unknown>, rounds: readonly DeepSeekResponse[]): number {
  const messages = (Array.isArray(request.messages) ? request.messages : []) as {
    role?: unknown;
    tool_call_id?: unknown;
  }[];
  const newest = messages.findLast((message) => message.role === 'tool');
  if (newest === undefined) return 0;
  const index = rounds.findIndex((round) =>
    round.choices[0]?.message.tool_calls?.some((call) => call.id === newest.tool_call_id),
  );
  return index === -1 ? messages.filter((message) => message.role === 'assistant').length : index + 1;
}

/** A response: a chat completion (200), any JSON body with a status, or raw text with its content type (an HTML page). */
export type WireReply =
  | DeepSeekResponse
  | { status: number; body: unknown }
  | { status: number; raw: string; contentType: string };
export type WireScript = (WireReply | ((request: Record<string, unknown>) => WireReply | Promise<WireReply>))[];

/**
 * Whether a chat-completion request is the SemanticGuard's judge call: its system message starts with the judge's own
 * instructions (it never carries the agent's, and it offers no tools).
 */
export function isJudgeRequest(body: Record<string, unknown>): boolean {
  const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown; content?: unknown }[]) : [];
  const system = messages.find((message) => message.role === 'system');
  return typeof system?.content === 'string' && system.content.startsWith(SEMANTIC_GUARD_TITLE) && !('tools' in body);
}

/**
 * A loopback OpenAI-compatible server that answers `POST /v1/chat/completions` from a queue, one entry per request
 * (tests may push more entries at any time), and records every request body and the chat completion it answered
 * with (`undefined` for an error reply), by position: a measure of a run's output reads what was really answered,
 * not the script the server consumed. The judge's requests ({@link isJudgeRequest}) are answered from a queue of
 * their own, `judgeScript`, so a conversation's agent rounds and its judge answer never take each other's turn. An empty queue answers 599, so a test never passes on an
 * unplanned call (an unplanned judge call then fails closed).
 */
export async function startDeepSeekServer(script: WireScript = [], judgeScript: WireScript = []) {
  const requests: Record<string, unknown>[] = [];
  const judgeRequests: Record<string, unknown>[] = [];
  const responses: (DeepSeekResponse | undefined)[] = [];
  const judgeResponses: (DeepSeekResponse | undefined)[] = [];
  const headers: IncomingMessage['headers'][] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      const judge = isJudgeRequest(body);
      (judge ? judgeRequests : requests).push(body);
      headers.push(request.headers);
      const answered = judge ? judgeResponses : responses;
      // NOTE: the slot is taken before a scripted function is awaited, so the i-th request keeps the i-th answer.
      const slot = answered.push(undefined) - 1;
      const entry = (judge ? judgeScript : script).shift();
      const reply = typeof entry === 'function' ? await entry(body) : entry;
      if (reply !== undefined && !('status' in reply)) answered[slot] = reply;
      if (response.destroyed) return;
      if (reply === undefined) return send(response, 599, { error: { message: 'script exhausted' } });
      if ('status' in reply && 'raw' in reply) return sendRaw(response, reply.status, reply.raw, reply.contentType);
      if ('status' in reply && 'body' in reply) return send(response, reply.status, reply.body);
      return send(response, 200, reply);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    /** The agent's requests (and any other that is not the judge's). */
    requests,
    /** The SemanticGuard judge's requests. */
    judgeRequests,
    /** The chat completion each agent request got, by position (`undefined`: an error reply or none). */
    responses,
    /** The chat completion each judge request got, by position. */
    judgeResponses,
    headers,
    script,
    judgeScript,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  sendRaw(response, status, JSON.stringify(body), 'application/json');
}

function sendRaw(response: ServerResponse, status: number, text: string, contentType: string): void {
  response.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  response.end(text);
}
