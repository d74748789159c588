import { scriptedRound, startDeepSeekServer, wireText, wireToolCalls } from '@diagnosis/devkit';
import { describe, expect, it } from 'vitest';

const ask = (baseURL: string, system: string) =>
  fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'deepseek-v4-flash', messages: [{ role: 'system', content: system }] }),
  });

describe('startDeepSeekServer', () => {
  it('records the completion each request got by position, after the script it came from is consumed', async () => {
    const first = wireText('{"a":1}');
    const second = wireText('{"b":2}');
    const server = await startDeepSeekServer([
      first,
      { status: 429, body: { error: { message: 'slow down' } } },
      second,
    ]);
    try {
      for (let index = 0; index < 4; index += 1) await ask(server.baseURL, 'agent');

      expect(server.script).toHaveLength(0);
      expect(server.requests).toHaveLength(4);
      expect(server.responses).toEqual([first, undefined, second, undefined]);
      expect(server.judgeResponses).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('keeps a slow scripted answer in its own request’s place', async () => {
    let release: () => void = () => undefined;
    const slow = wireText('{"slow":true}');
    const fast = wireText('{"fast":true}');
    const server = await startDeepSeekServer([() => new Promise((resolve) => (release = () => resolve(slow))), fast]);
    try {
      const pending = ask(server.baseURL, 'agent');
      await expect.poll(() => server.requests.length).toBe(1);
      await ask(server.baseURL, 'agent');
      release();
      await pending;

      expect(server.responses).toEqual([slow, fast]);
    } finally {
      await server.close();
    }
  });
});

describe('scriptedRound', () => {
  const rounds = [
    wireToolCalls([{ id: 'call_a', name: 'query_logs', arguments: {} }]),
    wireToolCalls([{ id: 'call_b', name: 'query_logs', arguments: {} }]),
    wireText('{}'),
  ];
  const call = (id: string) => ({ role: 'assistant', tool_calls: [{ id, type: 'function' }] });
  const result = (id: string) => ({ role: 'tool', tool_call_id: id, content: '{}' });

  it('answers the first round to a request that carries no tool result', () => {
    expect(scriptedRound({ messages: [{ role: 'system' }, { role: 'user' }] }, rounds)).toBe(0);
  });

  it('answers the round after the one whose call the newest tool result answers, whatever was folded before it', () => {
    const whole = [{ role: 'user' }, call('call_a'), result('call_a'), call('call_b'), result('call_b')];
    // Folded: the judged rounds are gone, the newest stays.
    const folded = [{ role: 'user' }, call('call_a'), result('call_a'), call('call_b'), result('call_b')].filter(
      (_, index) => index !== 1 && index !== 2,
    );

    expect(scriptedRound({ messages: whole }, rounds)).toBe(2);
    expect(scriptedRound({ messages: folded }, rounds)).toBe(2);
    expect(scriptedRound({ messages: [{ role: 'user' }, call('call_a'), result('call_a')] }, rounds)).toBe(1);
  });

  it('falls back to the count of assistant messages for a call no round made', () => {
    expect(scriptedRound({ messages: [{ role: 'user' }, call('other'), result('other')] }, rounds)).toBe(1);
  });
});
