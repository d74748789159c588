/**
 * The replay's scripted model, answering the real provider from the loopback server in DeepSeek's wire format: an
 * agent that asks the replay plan's calls one round at a time (following the progress protocol: each non-empty result
 * evaluated GAINED in the next call's envelope, as the expert went on), then writes a Draft from what the tools
 * actually returned — a SUPPORTED FINDING per call that returned lines (its newest line quoted), a NO_EVIDENCE
 * NEGATIVE_OBSERVATION per empty one, and, when at least one FINDING stands, a conclusion naming the case's ground
 * truth (fault object, root cause, category) — and a judge that follows the EvidenceGuard: the guard runs first and
 * a Draft reaches the judge only when its citations hold, so the judge calls each item and the conclusion SUPPORTED.
 * It scripts the experts' path, not a model: what it measures is our side (the tools, bounds, masking, guards, budget).
 * Each response reports the `usage` a provider would: the request's and its own tokens counted with DeepSeek's
 * tokenizer (the same count as the eval's `measured`, without cache hits), so the run's token budget sees what a
 * DeepSeek run of the same conversation would report.
 */
import {
  type DeepSeekResponse,
  requestSegments,
  responseTexts,
  type TokenCounter,
  type WireReply,
  type WireScript,
} from '@diagnosis/devkit';
import type { PlannedCall, ReplayPlan } from './replay-plan.ts';

export interface GroundTruth {
  faultTaxonomy: string;
  faultObject: string;
  rootCause: string;
}

export interface ReplayModel {
  agent: WireScript;
  judge: WireScript;
  /** What the agent received for each call, by tool call id: the tool message's text as the request carried it. */
  received: Map<string, string>;
  /** The responses given, in order: the token measurement pairs them with the requests. */
  responses: { agent: DeepSeekResponse[]; judge: DeepSeekResponse[] };
}

type WireMessage = {
  role?: unknown;
  content?: unknown;
  tool_call_id?: unknown;
  tool_calls?: { id?: unknown }[];
};

const MODEL = 'deepseek-v4-flash';

function response(
  id: string,
  message: DeepSeekResponse['choices'][number]['message'],
  finish: string,
): DeepSeekResponse {
  return {
    id,
    object: 'chat.completion',
    created: 0,
    model: MODEL,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finish }],
    system_fingerprint: 'fp_replay',
  };
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/**
 * The calls a folded history lists: once the history passes its bound, the harness drops the middle tool rounds and
 * the first call's result becomes a record of the folded calls (`evidence_status: COMPACTED`, `columns` once and
 * `calls: [[tool_call_id, …], …]`, packages/core/src/harness/compact-history.ts). Empty for any other tool message.
 */
function recordedCalls(observation: Record<string, unknown> | undefined): string[] {
  if (observation?.evidence_status !== 'COMPACTED' || !Array.isArray(observation.calls)) return [];
  const at = Array.isArray(observation.columns) ? observation.columns.indexOf('tool_call_id') : -1;
  return observation.calls.flatMap((entry) => {
    const id = Array.isArray(entry) ? entry[at] : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

/** The observation a tool message carries, or undefined when its text is not one. */
export function parseObservation(content: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(content) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The log messages an observation shows: its lines' messages, or its table's messages whole (the parts the rows share
 * said once: `message`, or `message_prefix` and `message_suffix` around each cell, core's model-observation.ts).
 */
export function observationMessages(observation: Record<string, unknown> | undefined): string[] {
  const data = observation?.data as Record<string, unknown> | undefined | null;
  if (data === undefined || data === null) return [];
  const text = (value: unknown) => (typeof value === 'string' ? [value] : []);
  if (Array.isArray(data.lines)) return data.lines.flatMap((line) => text((line as { message?: unknown })?.message));
  if (!Array.isArray(data.columns) || !Array.isArray(data.rows)) return [];
  const at = data.columns.indexOf('message');
  const [prefix = '', shared = '', suffix = ''] = [data.message_prefix, data.message, data.message_suffix].map(
    (part) => text(part)[0],
  );
  if (at === -1 && shared === '') return [];
  const cells = (data.rows as unknown[]).flatMap((row) => text(at === -1 ? '' : Array.isArray(row) ? row[at] : null));
  return cells.map((cell) => `${prefix}${shared}${cell}${suffix}`);
}

function scopeOf(call: PlannedCall): string {
  const { input } = call;
  const filter = [input.level, input.keyword === undefined ? undefined : `关键字 ${input.keyword}`]
    .filter((part) => part !== undefined)
    .join('，');
  return `${input.service}${filter === '' ? '' : `（${filter}）`}，${input.start_time} 至 ${input.end_time}`.slice(
    0,
    300,
  );
}

/** The replay's model for one case (see the module's note). */
export function createReplayModel(plan: ReplayPlan, truth: GroundTruth, counter?: TokenCounter): ReplayModel {
  const received = new Map<string, string>();
  // NOTE: a request re-sends the conversation so far: each piece of text is counted once.
  const counted = new Map<string, number>();
  const tokens = (text: string) => {
    let count = counted.get(text);
    if (count === undefined) {
      count = counter?.encode(text).length ?? 0;
      counted.set(text, count);
    }
    return count;
  };
  const withUsage = (body: Record<string, unknown>, reply: DeepSeekResponse): DeepSeekResponse => {
    if (counter === undefined) return reply;
    const prompt = requestSegments(body).reduce((sum, segment) => sum + tokens(segment.text), 0);
    const completion = responseTexts(reply).reduce((sum, piece) => sum + tokens(piece), 0);
    return {
      ...reply,
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    };
  };
  const responses: ReplayModel['responses'] = { agent: [], judge: [] };
  let round = 0;

  const draft = (issued: readonly PlannedCall[]) => {
    const analysis: Record<string, unknown>[] = [];
    const missing: string[] = [];
    for (const call of issued) {
      const content = received.get(call.toolCallId);
      const observation = content === undefined ? undefined : parseObservation(content);
      const status = observation?.evidence_status;
      // NOTE: cites the call as a model does, by the number its observation showed (its id where it showed none).
      const refs = [typeof observation?.ref === 'number' ? observation.ref : call.toolCallId];
      if (status === 'OK') {
        const matched = (observation?.data as { matched?: unknown } | undefined)?.matched;
        const newest = (observationMessages(observation)[0] ?? '').replace(/\s+/g, ' ').slice(0, 200);
        analysis.push({
          type: 'FINDING',
          statement:
            `专家步骤 ${call.step}：匹配 ${typeof matched === 'number' ? matched : '若干'} 条，最新一条：${newest}`.slice(
              0,
              1_000,
            ),
          evidence_status: 'SUPPORTED',
          refs,
          scope: scopeOf(call),
        });
      } else if (status === 'EMPTY') {
        analysis.push({
          type: 'NEGATIVE_OBSERVATION',
          statement: `专家步骤 ${call.step}：没有匹配的记录`,
          evidence_status: 'NO_EVIDENCE',
          refs,
          scope: scopeOf(call),
        });
      } else {
        missing.push(`专家步骤 ${call.step} 没有得到结果（${typeof status === 'string' ? status : '未执行'}）`);
      }
    }
    for (const [tool, count] of Object.entries(plan.skipped)) {
      missing.push(`专家步骤 ${tool} 在本系统没有对应的工具，未回放（${count} 次）`);
    }
    const supported = analysis.filter((item) => item.type === 'FINDING');
    const conclusion =
      supported.length === 0
        ? null
        : `故障对象 ${truth.faultObject}，根因 ${truth.rootCause}（${truth.faultTaxonomy}）。依据：${supported.length} 个专家步骤的回放返回了记录。`;
    if (conclusion === null && missing.length === 0) missing.push('回放的专家步骤都没有返回记录');
    return {
      conclusion,
      analysis: analysis.slice(0, 10),
      action_plan: [],
      recommendations: [],
      limitations: {
        checked_scope: analysis.slice(0, 10).map((item) => String(item.scope)),
        missing_info: missing.slice(0, 10).map((line) => line.slice(0, 300)),
      },
    };
  };

  const agentTurn = (body: Record<string, unknown>): WireReply => {
    const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
    const issuedIds = new Set<string>();
    for (const message of messages) {
      if (message.role === 'tool' && typeof message.tool_call_id === 'string') {
        // NOTE: a call record is what the harness folded, not what a call returned: its calls count as issued.
        const record = recordedCalls(parseObservation(text(message.content)));
        for (const id of record) issuedIds.add(id);
        if (record.length === 0 && !received.has(message.tool_call_id)) {
          received.set(message.tool_call_id, text(message.content));
        }
      }
      for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
        if (typeof call.id === 'string') issuedIds.add(call.id);
      }
    }
    const issued = plan.calls.filter((call) => issuedIds.has(call.toolCallId));
    const next = plan.calls.find((call) => !issuedIds.has(call.toolCallId));
    round += 1;
    const id = `replay-${round}`;
    let reply: DeepSeekResponse;
    if (next === undefined || body.tool_choice === 'none' || body.tools === undefined) {
      reply = response(
        id,
        {
          role: 'assistant',
          content: JSON.stringify(draft(issued)),
          reasoning_content: '回放结束，按工具实际返回的记录写草稿。',
        },
        'stop',
      );
    } else {
      const last = messages.at(-1);
      const pending =
        last?.role === 'tool' && parseObservation(text(last.content))?.requires_evaluation === true
          ? { previous_observation: { tool_call_id: text(last.tool_call_id), evaluation: 'GAINED' } }
          : {};
      reply = response(
        id,
        {
          role: 'assistant',
          content: '',
          reasoning_content: `回放专家步骤 ${next.step}。`,
          tool_calls: [
            {
              index: 0,
              id: next.toolCallId,
              type: 'function',
              function: { name: 'query_logs', arguments: JSON.stringify({ ...pending, input: next.input }) },
            },
          ],
        },
        'tool_calls',
      );
    }
    const answered = withUsage(body, reply);
    responses.agent.push(answered);
    return answered;
  };

  const judgeTurn = (body: Record<string, unknown>): WireReply => {
    const messages = (Array.isArray(body.messages) ? body.messages : []) as WireMessage[];
    const user = messages.find((message) => message.role === 'user');
    let count = 0;
    let hasConclusion = false;
    try {
      const input = JSON.parse(text(user?.content)) as { draft?: { conclusion?: unknown; analysis?: unknown[] } };
      count = Array.isArray(input.draft?.analysis) ? input.draft.analysis.length : 0;
      hasConclusion = typeof input.draft?.conclusion === 'string';
    } catch {
      // An unreadable request gets an answer for an empty Draft, which the guard's parser refuses: fails closed.
    }
    const reason = '回放：引用已由 EvidenceGuard 核对，按其结论';
    const verdicts = {
      analysis: Array.from({ length: count }, () => ['SUPPORTED', reason]),
      conclusion: hasConclusion ? ['SUPPORTED', reason] : null,
    };
    const reply = response(
      `replay-judge-${responses.judge.length + 1}`,
      { role: 'assistant', content: JSON.stringify(verdicts) },
      'stop',
    );
    const answered = withUsage(body, reply);
    responses.judge.push(answered);
    return answered;
  };

  // NOTE: one entry per request the run may send: every planned call, the Draft round, and a few a refusal adds.
  const rounds = plan.calls.length + 4;
  return {
    agent: Array.from({ length: rounds }, () => agentTurn),
    judge: [judgeTurn, judgeTurn],
    received,
    responses,
  };
}
