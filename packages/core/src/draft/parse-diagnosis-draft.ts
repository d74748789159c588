import * as v from 'valibot';
import { type DiagnosisAgentOutputErrorCode, issuePaths } from '../errors.ts';
import { DEFAULT_RUN_LIMITS, type RunLimits } from '../run/run-limits.ts';
import { utf8Bytes } from '../run/utf8.ts';
import { type DiagnosisDraft, diagnosisDraftSchema, draftRuleViolations } from './diagnosis-draft.ts';

export type DraftParseResult =
  | { ok: true; draft: DiagnosisDraft }
  | { ok: false; code: DiagnosisAgentOutputErrorCode; issues: string[] };

const MAX_ISSUES = 10;

/**
 * Strictly parses the final model text as a DiagnosisDraft: `JSON.parse` of the text as it is (surrounding
 * whitespace is all JSON allows). Fenced, prefixed, suffixed, blank, malformed, oversized or schema-breaking text is
 * refused. There is no repair and no extraction. Tool call ids come back exactly as the model wrote them.
 */
export function parseDiagnosisDraft(
  text: string,
  limits: Pick<RunLimits, 'maxDraftBytes'> = DEFAULT_RUN_LIMITS,
): DraftParseResult {
  if (text.trim().length === 0) return { ok: false, code: 'DRAFT_BLANK', issues: [] };
  if (utf8Bytes(text) > limits.maxDraftBytes) return { ok: false, code: 'DRAFT_TOO_LARGE', issues: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: 'DRAFT_NOT_JSON', issues: [] };
  }
  const result = v.safeParse(diagnosisDraftSchema, value);
  if (!result.success) {
    return { ok: false, code: 'DRAFT_SCHEMA', issues: issuePaths(result.issues, MAX_ISSUES) };
  }
  const violations = draftRuleViolations(result.output);
  if (violations.length > 0) return { ok: false, code: 'DRAFT_SCHEMA', issues: violations.slice(0, MAX_ISSUES) };
  return { ok: true, draft: deepFreeze(result.output) };
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
