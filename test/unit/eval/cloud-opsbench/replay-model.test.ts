import type { DeepSeekResponse, WireReply } from '@diagnosis/devkit';
import { describe, expect, it } from 'vitest';
import { createReplayModel, observationMessages } from '../../../../packages/eval/src/cloud-opsbench/replay-model.ts';
import type { ReplayPlan } from '../../../../packages/eval/src/cloud-opsbench/replay-plan.ts';

const range = { start_time: '2031-05-06T10:18:00+08:00', end_time: '2031-05-06T10:21:00+08:00', limit: 20 };
const plan: ReplayPlan = {
  calls: [
    {
      toolCallId: 'call_00_a',
      input: { service: 'ts-ledger-service', ...range, level: 'ERROR' },
      step: 'GetErrorLogs(ts-ledger-service)',
      purpose: 'errors',
    },
    {
      toolCallId: 'call_00_b',
      input: { service: 'kubernetes', ...range, keyword: 'pod/' },
      step: 'GetResources(pods)',
      purpose: 'kubernetes',
    },
    {
      toolCallId: 'call_00_c',
      input: { service: 'ts-gateway-service', ...range },
      step: 'GetRecentLogs(ts-gateway-service)',
      purpose: 'recent',
    },
  ],
  skipped: { GetAppYAML: 1 },
  repeated: 0,
  overBudget: 0,
};
const truth = {
  faultTaxonomy: 'Runtime_Fault',
  faultObject: 'app/ts-ledger-service',
  rootCause: 'mysql_invalid_credentials',
};

const ok = (id: string, message: string) =>
  JSON.stringify({
    tool_call_id: id,
    evidence_status: 'OK',
    data: {
      matched: 7,
      service: 'ts-ledger-service',
      columns: ['time', 'message'],
      rows: [['10:20:03.500+08:00', message]],
    },
    requires_evaluation: true,
  });
const empty = (id: string) =>
  JSON.stringify({ tool_call_id: id, evidence_status: 'EMPTY', message: '查询已执行，没有匹配的证据。' });
const call = (id: string) => ({
  role: 'assistant',
  content: '',
  tool_calls: [{ id, type: 'function', function: { name: 'query_logs', arguments: '{}' } }],
});

async function answer(entry: unknown, body: Record<string, unknown>): Promise<DeepSeekResponse> {
  return (await (entry as (request: Record<string, unknown>) => WireReply | Promise<WireReply>)(
    body,
  )) as DeepSeekResponse;
}
const toolCall = (reply: DeepSeekResponse) => reply.choices[0]?.message.tool_calls?.[0];

describe('createReplayModel', () => {
  it('asks the plan’s calls in order, evaluating a pending result GAINED and nothing after an empty one', async () => {
    const model = createReplayModel(plan, truth);
    const system = { role: 'system', content: 'instructions' };
    const user = { role: 'user', content: '{}' };
    const first = await answer(model.agent[0], { messages: [system, user], tools: [] });
    expect(toolCall(first)?.id).toBe('call_00_a');
    expect(JSON.parse(toolCall(first)?.function.arguments ?? '')).toEqual({ input: plan.calls[0]?.input });

    const afterOk = [
      system,
      user,
      call('call_00_a'),
      { role: 'tool', tool_call_id: 'call_00_a', content: ok('call_00_a', 'Access denied') },
    ];
    const second = await answer(model.agent[1], { messages: afterOk, tools: [] });
    expect(JSON.parse(toolCall(second)?.function.arguments ?? '')).toEqual({
      previous_observation: { tool_call_id: 'call_00_a', evaluation: 'GAINED' },
      input: plan.calls[1]?.input,
    });

    const afterEmpty = [
      ...afterOk,
      call('call_00_b'),
      { role: 'tool', tool_call_id: 'call_00_b', content: empty('call_00_b') },
    ];
    const third = await answer(model.agent[2], { messages: afterEmpty, tools: [] });
    expect(JSON.parse(toolCall(third)?.function.arguments ?? '')).toEqual({ input: plan.calls[2]?.input });
    expect(model.received.get('call_00_a')).toBe(ok('call_00_a', 'Access denied'));
  });

  it('goes on with the next call once the harness folded earlier rounds into its call record', async () => {
    const fourth = {
      toolCallId: 'call_00_d',
      input: { service: 'ts-ledger-service', ...range },
      step: 'GetRecentLogs(ts-ledger-service)',
      purpose: 'recent' as const,
    };
    const model = createReplayModel({ ...plan, calls: [...plan.calls, fourth] }, truth);
    // The history as the harness sends it once folded: the first call's result is the record of the first two calls
    // (the second round's messages are gone), then the newest round as sent.
    const record = JSON.stringify({
      tool_call_id: 'call_00_a',
      evidence_status: 'COMPACTED',
      message: '较早的调用',
      columns: ['tool_call_id', 'tool', 'input', 'evidence_status', 'rows'],
      calls: [
        ['call_00_a', 'query_logs', plan.calls[0]?.input, 'OK', 1],
        ['call_00_b', 'query_logs', plan.calls[1]?.input, 'OK', 1],
      ],
    });
    const folded = [
      { role: 'system', content: 'instructions' },
      { role: 'user', content: '{}' },
      call('call_00_a'),
      { role: 'tool', tool_call_id: 'call_00_a', content: record },
      call('call_00_c'),
      { role: 'tool', tool_call_id: 'call_00_c', content: ok('call_00_c', 'GET /health 200') },
    ];
    const next = await answer(model.agent[3], { messages: folded, tools: [] });
    expect(toolCall(next)?.id).toBe('call_00_d');
    expect(JSON.parse(toolCall(next)?.function.arguments ?? '').previous_observation).toEqual({
      tool_call_id: 'call_00_c',
      evaluation: 'GAINED',
    });
    // The record is not an observation: what the first call returned is what its own round carried, or nothing.
    expect(model.received.has('call_00_a')).toBe(false);
  });

  it('writes the Draft from what came back: FINDINGs cite the calls with lines, the conclusion names the ground truth', async () => {
    const model = createReplayModel(plan, truth);
    const messages = [
      { role: 'system', content: 'x' },
      call('call_00_a'),
      {
        role: 'tool',
        tool_call_id: 'call_00_a',
        content: ok('call_00_a', "Access denied for user 'ledger'@'<ipv4:k3f2a>'"),
      },
      call('call_00_b'),
      // NOTE: an observation that shows its call's number is cited by it; one that shows none, by its id.
      {
        role: 'tool',
        tool_call_id: 'call_00_b',
        content: JSON.stringify({ ...JSON.parse(empty('call_00_b')), ref: 2 }),
      },
      call('call_00_c'),
      {
        role: 'tool',
        tool_call_id: 'call_00_c',
        content: JSON.stringify({ tool_call_id: 'call_00_c', evidence_status: 'ERROR', code: 'TIMEOUT' }),
      },
    ];
    // The forced Draft round (tool_choice none) is answered with the Draft.
    const reply = await answer(model.agent[0], { messages, tools: [], tool_choice: 'none' });
    const draft = JSON.parse(reply.choices[0]?.message.content ?? '');
    expect(draft.conclusion).toBe(
      '故障对象 app/ts-ledger-service，根因 mysql_invalid_credentials（Runtime_Fault）。依据：1 个专家步骤的回放返回了记录。',
    );
    expect(draft.analysis).toEqual([
      {
        type: 'FINDING',
        statement:
          "专家步骤 GetErrorLogs(ts-ledger-service)：匹配 7 条，最新一条：Access denied for user 'ledger'@'<ipv4:k3f2a>'",
        evidence_status: 'SUPPORTED',
        refs: ['call_00_a'],
        scope: 'ts-ledger-service（ERROR），2031-05-06T10:18:00+08:00 至 2031-05-06T10:21:00+08:00',
      },
      {
        type: 'NEGATIVE_OBSERVATION',
        statement: '专家步骤 GetResources(pods)：没有匹配的记录',
        evidence_status: 'NO_EVIDENCE',
        refs: [2],
        scope: 'kubernetes（关键字 pod/），2031-05-06T10:18:00+08:00 至 2031-05-06T10:21:00+08:00',
      },
    ]);
    expect(draft.limitations.missing_info).toEqual([
      '专家步骤 GetRecentLogs(ts-gateway-service) 没有得到结果（ERROR）',
      '专家步骤 GetAppYAML 在本系统没有对应的工具，未回放（1 次）',
    ]);
  });

  it('abstains when no call returned lines, and its judge calls every item and the conclusion SUPPORTED', async () => {
    const model = createReplayModel({ ...plan, calls: plan.calls.slice(1, 2), skipped: {} }, truth);
    const messages = [call('call_00_b'), { role: 'tool', tool_call_id: 'call_00_b', content: empty('call_00_b') }];
    const draft = JSON.parse((await answer(model.agent[0], { messages, tools: [] })).choices[0]?.message.content ?? '');
    expect(draft.conclusion).toBeNull();
    const judged = await answer(model.judge[0], {
      messages: [
        { role: 'system', content: 'judge' },
        {
          role: 'user',
          content: JSON.stringify({ query: 'q', draft: { conclusion: 'c', analysis: [{}, {}] }, evidence: [] }),
        },
      ],
    });
    expect(JSON.parse(judged.choices[0]?.message.content ?? '')).toEqual({
      analysis: [
        ['SUPPORTED', '回放：引用已由 EvidenceGuard 核对，按其结论'],
        ['SUPPORTED', '回放：引用已由 EvidenceGuard 核对，按其结论'],
      ],
      conclusion: ['SUPPORTED', '回放：引用已由 EvidenceGuard 核对，按其结论'],
    });
    expect(model.responses.agent).toHaveLength(1);
    expect(model.responses.judge).toHaveLength(1);
  });

  it('reports usage counted by the tokenizer it is given: the request’s text and its own', async () => {
    const counter = { encode: (text: string) => Array.from(text, (character) => character.length) };
    const model = createReplayModel(plan, truth, counter);
    const reply = await answer(model.agent[0], {
      messages: [
        { role: 'system', content: 'ab' },
        { role: 'user', content: 'cd' },
      ],
      tools: [],
    });
    const usage = reply.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number };
    expect(usage.prompt_tokens).toBeGreaterThan(4);
    expect(usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(createReplayModel(plan, truth).agent.length).toBe(plan.calls.length + 4);
  });
});

describe('observationMessages', () => {
  it('reads the messages of a table or of lines, and nothing else', () => {
    expect(
      observationMessages({
        data: {
          columns: ['time', 'message'],
          rows: [
            ['t', 'm1'],
            ['t', 2],
          ],
        },
      }),
    ).toEqual(['m1']);
    expect(observationMessages({ data: { lines: [{ message: 'm2' }, null] } })).toEqual(['m2']);
    expect(observationMessages({ data: { columns: ['time'], rows: [['t']] } })).toEqual([]);
    expect(observationMessages(undefined)).toEqual([]);
  });

  it('puts back the parts a table says once: one shared message, or a shared start and end', () => {
    const table = { columns: ['time'], rows: [['t1'], ['t2']], message: 'Access denied for user' };
    expect(observationMessages({ data: table })).toEqual(['Access denied for user', 'Access denied for user']);
    const parts = {
      message_prefix: 'HikariPool-1 - Connection is not available, ',
      message_suffix: ' (total=5)',
      columns: ['time', 'message'],
      rows: [
        ['t1', 'waiting=3'],
        ['t2', 'waiting=9'],
      ],
    };
    expect(observationMessages({ data: parts })).toEqual([
      'HikariPool-1 - Connection is not available, waiting=3 (total=5)',
      'HikariPool-1 - Connection is not available, waiting=9 (total=5)',
    ]);
  });
});
