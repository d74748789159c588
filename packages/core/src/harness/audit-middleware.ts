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
  const reasoning = joinParts(result.content, 'reasoning');
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

function contentSource(hasReasoning: boolean, hasAssistant: boolean): ContentSource {
  if (hasReasoning && hasAssistant) return 'PROVIDER_REASONING+ASSISTANT_TEXT';
  if (hasReasoning) return 'PROVIDER_REASONING';
  if (hasAssistant) return 'ASSISTANT_TEXT';
  return 'NONE';
}
