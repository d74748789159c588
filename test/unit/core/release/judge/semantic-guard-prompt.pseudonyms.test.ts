import { buildSemanticGuardInstructions } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import {
  buildJudgeEvidence,
  buildJudgePrompt,
  judgedTexts,
} from '../../../../../packages/core/src/release/judge/semantic-guard-prompt.ts';
import type { Observation } from '../../../../../packages/core/src/tools/observation.ts';
import { supportedDraft } from '../../../../support/run-fixtures.ts';

const logs = (id: string, messages: string[]): Observation => ({
  tool_call_id: id,
  evidence_status: 'OK',
  data: {
    matched: messages.length,
    lines: messages.map((message, index) => ({
      timestamp: `2026-11-30T06:${String(10 + index).padStart(2, '0')}:00.000Z`,
      level: 'ERROR',
      service: 'order-service',
      message,
    })),
  },
  requires_evaluation: true,
});
const citation = (id: string) => ({ tool_call_id: id, tool_name: 'query_logs' as const, empty: false });
const limits = { maxObservationBytes: 10_000, maxEvidenceBytes: 10_000 };
const messagesOf = (observation: unknown): unknown[] =>
  (observation as { rows: unknown[][] }).rows.map((row) => row[1]);

describe('buildJudgeEvidence: pseudonyms', () => {
  it('keeps a pseudonym two places share or a text names, and writes the rest as their kind alone', () => {
    const evidence = buildJudgeEvidence(
      [citation('call-1'), citation('call-2')],
      new Map([
        [
          'call-1',
          logs('call-1', [
            'pay failed user_phone=<phone:aaaaa> email=<email:bbbbb>',
            'pay failed user_phone=<phone:ccccc>',
            'pay failed user_phone=<phone:ddddd> again <phone:ddddd>',
          ]),
        ],
        ['call-2', logs('call-2', ['refund for <email:bbbbb>', 'refund for <phone:eeeee>'])],
      ]),
      limits,
      ['q', 'the conclusion names <phone:ccccc>'],
    );
    expect(messagesOf(evidence[0]?.observation)).toEqual([
      'pay failed user_phone=<phone> email=<email:bbbbb>',
      'pay failed user_phone=<phone:ccccc>',
      'pay failed user_phone=<phone:ddddd> again <phone:ddddd>',
    ]);
    expect(messagesOf(evidence[1]?.observation)).toEqual(['refund for <email:bbbbb>', 'refund for <phone>']);
  });

  it('reads the query and the Draft’s claims as the texts a pseudonym may be named in', () => {
    const draft = { ...supportedDraft(['call-1']), recommendations: ['call back <phone:rrrrr>'] };
    const [entry] = buildJudgeEvidence(
      [citation('call-1')],
      new Map([['call-1', logs('call-1', ['user <phone:qqqqq>', 'user <phone:rrrrr>', 'user <phone:sssss>'])]]),
      limits,
      judgedTexts('why did <phone:qqqqq> fail', draft),
    );
    expect(messagesOf(entry?.observation)).toEqual(['user <phone:qqqqq>', 'user <phone:rrrrr>', 'user <phone>']);
  });

  it('says once what the messages share when written after the pseudonyms that link nothing', () => {
    const [entry] = buildJudgeEvidence(
      [citation('call-1')],
      new Map([
        [
          'call-1',
          logs('call-1', [
            'call payment-gateway failed order_id=1 user_phone=<phone:aaaaa> at checkout',
            'call payment-gateway failed order_id=2 user_phone=<phone:bbbbb> at checkout',
          ]),
        ],
      ]),
      limits,
    );
    // NOTE: each row's own pseudonym links nothing: written `<phone>`, it is part of the text both rows end with.
    expect(entry?.observation).toMatchObject({
      message_prefix: 'call payment-gateway failed ',
      message_suffix: ' user_phone=<phone> at checkout',
    });
    expect(messagesOf(entry?.observation)).toEqual(['order_id=1', 'order_id=2']);
  });

  it('leaves text that only looks like a pseudonym, and a non-string value, as they are', () => {
    const [entry] = buildJudgeEvidence(
      [citation('call-1')],
      new Map([['call-1', logs('call-1', ['<Phone:aaaaa> <phone:a1> <phone> 42'])]]),
      limits,
    );
    expect(messagesOf(entry?.observation)).toEqual(['<Phone:aaaaa> <phone:a1> <phone> 42']);
  });
});

describe('buildJudgePrompt and the instructions: positional forms', () => {
  it('sends each evidence entry as [tool, observation] and the instructions name every positional form', () => {
    const evidence = buildJudgeEvidence([citation('call-1')], new Map([['call-1', logs('call-1', ['x'])]]), limits);
    const input = JSON.parse(buildJudgePrompt('q', supportedDraft(['call-1']), [citation('call-1')], evidence));
    expect(input.evidence).toEqual([['query_logs', evidence[0]?.observation]]);
    const instructions = buildSemanticGuardInstructions();
    expect(instructions).toContain('[type, statement, 所引 evidence 下标, scope?]');
    expect(instructions).toContain('[步骤, 目的]');
    expect(instructions).toContain('[工具, 已校验的结果]');
    expect(instructions).toContain('message 为 message_prefix + 该格 + message_suffix');
    expect(instructions).toContain('化名为 <类型>');
  });
});
