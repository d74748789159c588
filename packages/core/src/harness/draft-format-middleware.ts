import type { LanguageModelMiddleware } from 'ai';
import { type DraftFormat, providerJsonSchema } from '../config/model-profiles.ts';
import { diagnosisDraftJsonSchema } from '../draft/diagnosis-draft.ts';

/** The `responseFormat` of a Draft round, by the profile's format (`undefined`: ask for nothing). */
export function draftResponseFormat(format: DraftFormat) {
  switch (format) {
    case 'json-schema':
      return {
        type: 'json' as const,
        schema: providerJsonSchema(diagnosisDraftJsonSchema()) as Record<string, unknown>,
        name: 'DiagnosisDraft',
      };
    case 'json-object':
      return { type: 'json' as const };
    default:
      return undefined;
  }
}

/**
 * Asks the provider for JSON in the Draft round only: a round that offers no tools (the harness's final round, with
 * `activeTools: []`) gets `responseFormat` — a JSON Schema of the Draft where the profile has structured outputs
 * (the provider must be created with `supportsStructuredOutputs`), else JSON mode; a round that offers tools is left
 * exactly as it was. NOTE: this only shapes the request. The answer goes through the same strict parser: a fenced or
 * prose Draft still ends the run with a FALLBACK (`Output.object` is not used: it would send `response_format` on
 * tool rounds too and throw away the run's steps on a bad answer).
 */
export function createDraftFormatMiddleware(format: DraftFormat): LanguageModelMiddleware {
  const responseFormat = draftResponseFormat(format);
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      if (responseFormat === undefined || (params.tools !== undefined && params.tools.length > 0)) return params;
      return { ...params, responseFormat };
    },
  };
}
