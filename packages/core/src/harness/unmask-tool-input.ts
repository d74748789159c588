import type { MysqlQueryDescriptor, ToolName } from '../tools/evidence-adapter.ts';
import { isRecord } from '../tools/evidence-projection.ts';
import type { MaskingSession } from '../tools/masking/masking-session.ts';

/**
 * The call's envelope with the pseudonyms in its business input restored to the real values, for the adapter; null
 * when the input names a pseudonym this run has not shown (made up, or from another run). NOTE: the model names
 * values by the pseudonyms it saw, the adapter needs the real ones, and an unknown pseudonym must never reach a
 * source as a search term. An envelope without `input` is returned as it is (the parser refuses it).
 */
export function unmaskToolInput(
  toolName: ToolName,
  rawInput: unknown,
  masking: MaskingSession,
  catalog: readonly MysqlQueryDescriptor[],
): unknown {
  if (!isRecord(rawInput) || !Object.hasOwn(rawInput, 'input')) return rawInput;
  const restored = masking.unmaskInput(
    rawInput.input,
    toolName === 'query_mysql' ? integerParams(rawInput.input, catalog) : undefined,
  );
  return restored.ok ? { ...rawInput, input: restored.value } : null;
}

/** The integer parameters of the catalog query a `query_mysql` input names (a pseudonym there may stand for a number). */
function integerParams(input: unknown, catalog: readonly MysqlQueryDescriptor[]): ReadonlySet<string> {
  const name = isRecord(input) ? input.query_name : undefined;
  const entry = catalog.find((candidate) => candidate.name === name);
  return new Set(
    Object.entries(entry?.params ?? {}).flatMap(([param, descriptor]) =>
      descriptor.type === 'integer' ? [param] : [],
    ),
  );
}
