import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { ESTIMATED_BYTES_PER_TOKEN, roundUsage } from '@diagnosis/core/harness';
import { describe, expect, it } from 'vitest';
import { textRound, toolRound } from '../../../support/scripted-model.ts';

const prompt: LanguageModelV4Prompt = [
  { role: 'system', content: '你是诊断助手。' },
  { role: 'user', content: [{ type: 'text', text: '{"query":"E1001 的订单从 14:05 开始失败，为什么？"}' }] },
];
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('roundUsage', () => {
  it('estimates both sides from the UTF-8 sizes of the request and the response when the provider omits usage', () => {
    const usage = roundUsage({ prompt }, textRound('{"conclusion":null}', { omitUsage: true }));
    expect(ESTIMATED_BYTES_PER_TOKEN).toBe(2);
    expect(usage).toEqual({
      inputTokens: Math.ceil(bytes([prompt, []]) / 2),
      outputTokens: Math.ceil(Buffer.byteLength('{"conclusion":null}') / 2),
      estimated: true,
    });
  });

  it('counts the tool calls a round asked for as its output', () => {
    const round = toolRound([{ id: 'call-1', name: 'query_logs', input: { input: { service: 'order-service' } } }], {
      omitUsage: true,
    });
    expect(roundUsage({ prompt }, round).outputTokens).toBe(
      Math.ceil((Buffer.byteLength('query_logs') + bytes({ input: { service: 'order-service' } })) / 2),
    );
  });

  it('keeps the reported side and estimates only the side reported as 0', () => {
    const usage = roundUsage({ prompt }, textRound('一段回答', { inputTokens: 700, outputTokens: 0 }));
    expect(usage).toMatchObject({ inputTokens: 700, outputTokens: Math.ceil(12 / 2), estimated: true });
  });

  it('marks nothing estimated when the provider reports both sides, or 0 output for empty output', () => {
    expect(roundUsage({ prompt }, textRound('x', { inputTokens: 700, outputTokens: 5 }))).toMatchObject({
      inputTokens: 700,
      outputTokens: 5,
      estimated: false,
    });
    expect(roundUsage({ prompt }, textRound('', { inputTokens: 700, outputTokens: 0 }))).toMatchObject({
      outputTokens: 0,
      estimated: false,
    });
  });
});
