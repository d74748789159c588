import type { LanguageModelMiddleware } from 'ai';
import { type DraftFormat, providerJsonSchema } from '../config/model-profiles.ts';
import { draftAnswerJsonSchema } from '../draft/diagnosis-draft.ts';

/** The `responseFormat` of a Draft round, by the profile's format (`undefined`: ask for nothing). */
export function draftResponseFormat(format: DraftFormat) {
  switch (format) {
    case 'json-schema':
      return {
        type: 'json' as const,
        schema: providerJsonSchema(draftAnswerJsonSchema()) as Record<string, unknown>,
        name: 'DiagnosisDraft',
      };
    case 'json-object':
      return { type: 'json' as const };
    default:
      return undefined;
  }
}

/**
 * Shapes the forced Draft round (the harness's final round: the earlier rounds' tools with `toolChoice: 'none'`) as
 * the profile can: `keepTools` (the provider documents `tool_choice: "none"` and JSON mode in one request) leaves the
 * tools and the tool choice exactly as sent, so the request's prefix stays the previous round's (prompt cache);
 * otherwise the tools and the tool choice are dropped. Either way it gets `responseFormat` — a JSON Schema of the
 * Draft where the profile has structured outputs (the provider must be created with `supportsStructuredOutputs`),
 * else JSON mode. A round that may call tools is left exactly as it was. NOTE: this only shapes the request. The
 * answer goes through the same strict parser: a fenced or prose Draft still ends the run with a FALLBACK
 * (`Output.object` is not used: it would send `response_format` on tool rounds too and throw away the run's steps on
 * a bad answer).
 */
export function createDraftFormatMiddleware(format: DraftFormat, keepTools = false): LanguageModelMiddleware {
  const responseFormat = draftResponseFormat(format);
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      const offersTools = params.tools !== undefined && params.tools.length > 0;
      if (offersTools && params.toolChoice?.type !== 'none') return params;
      const { tools: _tools, toolChoice: _toolChoice, ...withoutTools } = params;
      const shaped = keepTools || !offersTools ? params : withoutTools;
      return responseFormat === undefined ? shaped : { ...shaped, responseFormat };
    },
  };
}
