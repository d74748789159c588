import type { LanguageModelV4Content, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import type { LanguageModelMiddleware } from 'ai';
import type { RunContext } from '../run/run-context.ts';
import { truncateChars, utf8Bytes } from '../run/utf8.ts';
import {
  type AuditHook,
  type ContentSource,
  MAX_AUDIT_TEXT_CHARS,
  type ModelRole,
  type ModelStepEvent,
} from '../store/audit-hook.ts';

import { AuditFailure, HarnessFault } from './harness-signals.ts';
import { roundUsage } from './round-usage.ts';

/**
 * Audits every model round the provider answered, as one `ModelStepEvent`: the round number the budget middleware
 * counted, usage (flagged `usageEstimated` when the provider reported none), the reasoning and assistant texts (capped), the tool calls asked for, and times. A failing audit
 * hook ends the run (`AuditFailure`): an unaudited round never counts as done. Compose it inside the budget
 * middleware, so it sees exactly the rounds the budget let through. `role: 'JUDGE'` marks the SemanticGuard's call.
 */
export function createAuditMiddleware(options: {
  run: RunContext;
  audit: AuditHook;
  role?: ModelRole;
}): LanguageModelMiddleware {
  const { run, audit, role } = options;
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate, model, params }) => {
      const startedAt = run.now();
      const result = await doGenerate();
      let event: ModelStepEvent;
      try {
        const { estimated, ...usage } = roundUsage(params, result);
        event = buildStepEvent(result, {
          sessionId: run.sessionId,
          runId: run.runId,
          stepNumber: run.ledger.usage.modelCalls,
          ...(role === undefined ? {} : { role }),
          modelId: model.modelId,
          usage,
          usageEstimated: estimated,
          startedAt,
          endedAt: run.now(),
        });
      } catch (error) {
        throw new HarnessFault('the model round could not be read for its audit', { cause: error });
      }
      try {
        await audit.onModelStep(event);
      } catch (error) {
        throw new AuditFailure('model step audit failed', { cause: error, roundResult: result });
      }
      return result;
    },
  };
}

function buildStepEvent(
  result: LanguageModelV4GenerateResult,
  base: Pick<
    ModelStepEvent,
    'sessionId' | 'runId' | 'stepNumber' | 'role' | 'modelId' | 'usage' | 'usageEstimated' | 'startedAt' | 'endedAt'
  >,
): ModelStepEvent {
  const reasoning = joinParts(result.content, 'reasoning') || providerReasoning(result.response?.body);
  const plan = result.content
    .filter((part) => part.type === 'tool-call')
    .map((part) => `[tool_call ${part.toolCallId}] ${part.toolName} ${part.input}`);
  const text = joinParts(result.content, 'text');
  const assistant = [text, ...plan].filter((item) => item.length > 0).join('\n');
  const reasoningContent = truncateChars(reasoning, MAX_AUDIT_TEXT_CHARS);
  const assistantText = truncateChars(assistant, MAX_AUDIT_TEXT_CHARS);
  return {
    ...base,
    finishReason: result.finishReason.unified,
    reasoningContent,
    assistantText,
    contentSource: contentSource(reasoningContent.length > 0, assistantText.length > 0),
    contentBytes: utf8Bytes(reasoningContent) + utf8Bytes(assistantText),
    reasoningAvailable: reasoningContent.length > 0,
    truncated: reasoningContent.length < reasoning.length || assistantText.length < assistant.length,
    toolCalls: result.content.flatMap((part) =>
      part.type === 'tool-call' ? [{ toolCallId: part.toolCallId, toolName: part.toolName }] : [],
    ),
  };
}

function joinParts(content: LanguageModelV4Content[], type: 'reasoning' | 'text'): string {
  const joined = content.flatMap((part) => (part.type === type ? [part.text] : [])).join('');
  // NOTE: whitespace-only output counts as none; otherwise the provider's text is kept exactly as returned.
  return joined.trim().length === 0 ? '' : joined;
}

/** The provider's own reasoning keys, read from its answer when the SDK's reasoning field came back empty. */
const PROVIDER_REASONING_KEYS = ['reasoning_content', 'thinking'] as const;

/**
 * The reasoning a provider returned under a key of its own (`message.reasoning_content`, `message.thinking`) in the
 * answer's body as the provider sent it; '' when none holds non-blank text. NOTE: the SDK reads only the keys it
 * knows (and an empty `reasoning_content` hides the rest), so a provider that says `thinking` would otherwise be
 * audited as giving no reasoning.
 */
function providerReasoning(body: unknown): string {
  const message = firstMessage(body);
  if (message === null) return '';
  for (const key of PROVIDER_REASONING_KEYS) {
    const value = message[key];
    if (typeof value === 'string' && value.trim().length > 0) return value;
  }
  return '';
}

function firstMessage(body: unknown): Record<string, unknown> | null {
  if (typeof body !== 'object' || body === null || !('choices' in body) || !Array.isArray(body.choices)) return null;
  const choice: unknown = body.choices[0];
  if (typeof choice !== 'object' || choice === null || !('message' in choice)) return null;
  const message: unknown = choice.message;
  return typeof message === 'object' && message !== null ? (message as Record<string, unknown>) : null;
}

function contentSource(hasReasoning: boolean, hasAssistant: boolean): ContentSource {
  if (hasReasoning && hasAssistant) return 'PROVIDER_REASONING+ASSISTANT_TEXT';
  if (hasReasoning) return 'PROVIDER_REASONING';
  if (hasAssistant) return 'ASSISTANT_TEXT';
  return 'NONE';
}
