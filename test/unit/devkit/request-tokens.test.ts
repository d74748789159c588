import { loadDeepSeekTokenizer, measureConversation, measureRunTokens, type TokenCounter } from '@diagnosis/devkit';
import { beforeAll, describe, expect, it } from 'vitest';

let counter: TokenCounter;
beforeAll(async () => {
  counter = await loadDeepSeekTokenizer();
}, 120_000);

const system = { role: 'system', content: 'hello' };
const user = { role: 'user', content: 'world' };
const reply = (content: string, reasoning?: string) =>
  ({
    choices: [
      { message: { role: 'assistant', content, ...(reasoning === undefined ? {} : { reasoning_content: reasoning }) } },
    ],
  }) as never;

describe('measureConversation', () => {
  it('counts a small request as counted by hand: <｜begin▁of▁sentence｜> hello <｜User｜> world <｜Assistant｜>', () => {
    // NOTE: "hello" and "world" are one token each in DeepSeek-V3's vocabulary, every chat-template marker is one.
    const measured = measureConversation(counter, [{ messages: [system, user] }], [reply('ok', 'hello')]);
    expect(measured.requests[0]).toEqual({
      prompt: 5,
      parts: { instructions: 2, tools: 0, history: 3 },
      cachedEstimate: 0,
      completion: 2,
    });
  });

  it('counts the second round by hand and estimates its cache hit as the whole first request it starts with', () => {
    const first = { messages: [system, user] };
    // + <｜Assistant｜> ok <｜end▁of▁sentence｜> <｜User｜> ok <｜Assistant｜>
    const second = { messages: [system, user, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'ok' }] };
    const measured = measureConversation(counter, [first, second], [reply('ok'), reply('ok')]);
    expect(measured.requests.map((request) => [request.prompt, request.cachedEstimate])).toEqual([
      [5, 0],
      [10, 5],
    ]);
    expect(measured).toMatchObject({ prompt: 15, completion: 2, cachedEstimate: 5 });
  });

  it('counts tool outputs with their markers, and the tools array as the JSON text sent', () => {
    const tools = [{ type: 'function', function: { name: 'query_logs', parameters: { type: 'object' } } }];
    const withTool = {
      tools,
      messages: [system, user, { role: 'tool', tool_call_id: 'c1', content: 'ok' }],
    };
    const measured = measureConversation(counter, [withTool]);
    // <｜tool▁outputs▁begin｜><｜tool▁output▁begin｜> ok <｜tool▁output▁end｜>, then <｜tool▁outputs▁end｜><｜Assistant｜>
    expect(measured.requests[0]?.parts).toEqual({
      instructions: 2,
      tools: counter.encode(JSON.stringify(tools)).length,
      history: 2 + 4 + 2,
    });
  });

  it('counts a JSON-mode response_format after the conversation, so a Draft round keeps the cached prefix', () => {
    const first = { messages: [system, user] };
    const second = {
      messages: [system, user, { role: 'assistant', content: 'ok' }, { role: 'user', content: 'ok' }],
      response_format: { type: 'json_object' },
    };
    const measured = measureConversation(counter, [first, second], [reply('ok'), reply('ok')]);
    const format = counter.encode(JSON.stringify(second.response_format)).length;
    expect(measured.requests[1]).toMatchObject({ prompt: 10 + format, cachedEstimate: 5 });
  });

  it('hits only a prefix unit that a later request matches in full: A+B, A+C → miss, then A+D → hits A', () => {
    const a = { role: 'system', content: 'hello' };
    const request = (content: string) => ({ messages: [a, { role: 'user', content }] });
    const measured = measureConversation(counter, [request('world'), request('ok'), request('hello')]);
    expect(measured.requests.map((item) => item.cachedEstimate)).toEqual([0, 0, 3]);
  });

  it('lets an earlier run warm the cache: its requests seed the units, and only this run is measured', () => {
    const a = { role: 'system', content: 'hello' };
    const request = (content: string) => ({ messages: [a, { role: 'user', content }] });
    const cold = measureConversation(counter, [request('ok')], [reply('ok')]);
    // NOTE: one earlier request persists only itself; the prefix two of them share becomes a unit of its own.
    const once = measureConversation(counter, [request('ok')], [reply('ok')], { after: [request('world')] });
    expect(once.cachedEstimate).toBe(0);
    const warm = measureConversation(counter, [request('ok')], [reply('ok')], {
      after: [request('world'), request('hello')],
    });
    expect(cold.requests.map((item) => [item.prompt, item.cachedEstimate, item.completion])).toEqual([[5, 0, 1]]);
    // <｜begin▁of▁sentence｜> hello <｜User｜>: the prefix both runs start with, persisted by the earlier one.
    expect(warm.requests.map((item) => [item.prompt, item.cachedEstimate, item.completion])).toEqual([[5, 3, 1]]);
    expect(warm).toMatchObject({ prompt: 5, completion: 1, cachedEstimate: 3 });
  });
});

describe('measureRunTokens', () => {
  it('adds the judge’s requests as their own part and keeps the largest', () => {
    const measured = measureRunTokens(
      counter,
      { requests: [{ messages: [system, user] }], responses: [reply('ok')] },
      { requests: [{ messages: [system, user] }], responses: [reply('ok')] },
    );
    expect(measured).toEqual({
      inputTokens: 10,
      cachedInputTokens: 0,
      outputTokens: 2,
      totalTokens: 12,
      parts: { instructions: 2, tools: 0, history: 3, judge: 5 },
      largestJudgeRequest: 5,
    });
  });
});
