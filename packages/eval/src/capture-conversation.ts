/**
 * A captured run's model rounds as DeepSeek wire responses (`scripted.json`, described `RECORDED, not scripted`):
 * each agent round and judge call rebuilt from its audited step, its reasoning item and its tool calls, and what the
 * audit does not hold of them said in `missing`. The scenario around it is capture-run.ts's.
 */
import { MAX_AUDIT_TEXT_CHARS, type StoredReasoning } from '@diagnosis/core';
import type { StoredStep, StoredToolInvocation } from '@diagnosis/core/store';
import type { RunAudit } from './capture-audit.ts';
import type { WireResponse } from './scenario.ts';

const FINISH_REASONS: Record<string, string> = {
  'tool-calls': 'tool_calls',
  stop: 'stop',
  length: 'length',
  'content-filter': 'content_filter',
};

/** A run's model rounds as DeepSeek wire responses, from its steps, reasoning and tool calls; null without rounds. */
export function conversationOf(
  audit: RunAudit,
  missing: string[],
  what: string,
): { responses: WireResponse[]; judge?: WireResponse[] } | null {
  const reasoning = new Map(audit.reasoning.map((item) => [`${item.role}:${item.stepNumber}`, item]));
  const agent = audit.steps.filter((step) => step.role !== 'JUDGE');
  const judge = audit.steps.filter((step) => step.role === 'JUDGE');
  if (agent.length === 0) return null;
  if (audit.reasoning.length === 0) {
    missing.push(`${what}: its reasoning partition is empty (expired or never kept): the texts are not replayed`);
  }
  if (audit.run.modelFailure !== null) {
    missing.push(`${what}: the round the model endpoint failed (${audit.run.modelFailure.kind}) is not in the audit`);
  }
  const responses = agent.map((step) =>
    wireResponse(audit, step, reasoning.get(`AGENT:${step.stepNumber}`), missing, what),
  );
  const judged = judge.map((step) =>
    wireResponse(audit, step, reasoning.get(`JUDGE:${step.stepNumber}`), missing, what),
  );
  return { responses, ...(judged.length === 0 ? {} : { judge: judged }) };
}

function wireResponse(
  audit: RunAudit,
  step: StoredStep,
  texts: StoredReasoning | undefined,
  missing: string[],
  what: string,
): WireResponse {
  const assistant = texts?.assistantText ?? '';
  const reasoningText = texts?.reasoningContent ?? '';
  if (assistant.length >= MAX_AUDIT_TEXT_CHARS || reasoningText.length >= MAX_AUDIT_TEXT_CHARS) {
    missing.push(
      `${what}, round ${step.stepNumber}: a text reached the audit's ${MAX_AUDIT_TEXT_CHARS}-character cap and may be cut`,
    );
  }
  if (step.toolCallsTotal > step.toolCalls.length) {
    missing.push(
      `${what}, round ${step.stepNumber}: ${step.toolCallsTotal} tool calls asked, ${step.toolCalls.length} listed`,
    );
  }
  const { text, calls } = splitPlan(assistant, step, audit.tools);
  const usage = step.usageEstimated
    ? undefined
    : {
        prompt_tokens: step.inputTokens,
        completion_tokens: step.outputTokens,
        total_tokens: step.inputTokens + step.outputTokens,
        prompt_tokens_details: { cached_tokens: step.cachedInputTokens ?? 0 },
        completion_tokens_details: { reasoning_tokens: step.reasoningTokens ?? 0 },
        prompt_cache_hit_tokens: step.cachedInputTokens ?? 0,
        prompt_cache_miss_tokens: step.inputTokens - (step.cachedInputTokens ?? 0),
      };
  return {
    id: truncate(`recorded-${audit.run.runId}-${step.role === 'JUDGE' ? 'judge' : 'round'}-${step.stepNumber}`, 200),
    object: 'chat.completion',
    created: Math.floor(Date.parse(step.startedAt) / 1_000) || 0,
    model: step.modelId || 'unknown',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text,
          ...(reasoningText === '' ? {} : { reasoning_content: reasoningText }),
          ...(calls.length === 0
            ? {}
            : {
                tool_calls: calls.map((call, index) => ({
                  index,
                  id: call.id,
                  type: 'function',
                  function: { name: call.name, arguments: call.arguments },
                })),
              }),
        },
        logprobs: null,
        finish_reason: FINISH_REASONS[step.finishReason] ?? 'stop',
      },
    ],
    ...(usage === undefined ? {} : { usage }),
  };
}

/**
 * The visible text and the tool calls of a round. The audit's assistant text is the visible text followed by one
 * `[tool_call <id>] <name> <arguments>` entry per call, arguments exactly as the model sent them; each is found by
 * the id and name the step lists, in order. A call whose entry is not found (cut at the cap) takes its arguments from
 * its tool item's stored input instead.
 */
function splitPlan(
  assistant: string,
  step: StoredStep,
  tools: readonly StoredToolInvocation[],
): { text: string; calls: { id: string; name: string; arguments: string }[] } {
  const starts: number[] = [];
  let from = 0;
  for (const call of step.toolCalls) {
    const at = assistant.indexOf(`[tool_call ${call.toolCallId}] ${call.toolName} `, from);
    starts.push(at);
    if (at >= 0) from = at + 1;
  }
  const first = starts.find((at) => at >= 0);
  const text =
    step.toolCalls.length === 0 || first === undefined ? assistant : assistant.slice(0, first).replace(/\n$/, '');
  const calls = step.toolCalls.map((call, index) => {
    const at = starts[index] ?? -1;
    const next = starts.slice(index + 1).find((value) => value >= 0) ?? assistant.length;
    const head = `[tool_call ${call.toolCallId}] ${call.toolName} `;
    const planned = at >= 0 ? assistant.slice(at + head.length, next).replace(/\n$/, '') : null;
    const stored = tools.find((tool) => tool.toolCallId === call.toolCallId && tool.stepNumber === step.stepNumber);
    const argumentsText =
      planned ??
      (stored === undefined ? '{}' : typeof stored.input === 'string' ? stored.input : JSON.stringify(stored.input));
    return { id: call.toolCallId, name: call.toolName, arguments: argumentsText };
  });
  return { text, calls };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
