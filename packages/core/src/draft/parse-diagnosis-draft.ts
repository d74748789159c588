import * as v from 'valibot';
import { type DiagnosisAgentOutputErrorCode, issuePaths } from '../errors.ts';
import { DEFAULT_RUN_LIMITS, type RunLimits } from '../run/run-limits.ts';
import { utf8Bytes } from '../run/utf8.ts';
import { type DiagnosisDraft, type DraftAnswer, draftAnswerSchema, draftRuleViolations } from './diagnosis-draft.ts';

export type DraftParseResult =
  | { ok: true; draft: DiagnosisDraft }
  | { ok: false; code: DiagnosisAgentOutputErrorCode; issues: string[] };

const MAX_ISSUES = 10;

/**
 * Strictly parses the final model text as a DiagnosisDraft: `JSON.parse` of the text as it is (surrounding
 * whitespace is all JSON allows). Fenced, prefixed, suffixed, blank, malformed, oversized or schema-breaking text is
 * refused. There is no repair and no extraction. The model writes the Draft's form of {@link draftAnswerSchema}; it
 * comes back as the run keeps it, each item's `refs` as its `tool_call_ids` ({@link citedCallIds}): `calls` are this
 * run's tool call ids, the first call's first.
 */
export function parseDiagnosisDraft(
  text: string,
  limits: Pick<RunLimits, 'maxDraftBytes'> = DEFAULT_RUN_LIMITS,
  calls: readonly string[] = [],
): DraftParseResult {
  if (text.trim().length === 0) return { ok: false, code: 'DRAFT_BLANK', issues: [] };
  if (utf8Bytes(text) > limits.maxDraftBytes) return { ok: false, code: 'DRAFT_TOO_LARGE', issues: [] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: 'DRAFT_NOT_JSON', issues: [] };
  }
  const result = v.safeParse(draftAnswerSchema, value);
  if (!result.success) {
    return { ok: false, code: 'DRAFT_SCHEMA', issues: issuePaths(result.issues, MAX_ISSUES) };
  }
  const draft = citingCallIds(result.output, calls);
  const violations = draftRuleViolations(draft);
  if (violations.length > 0) return { ok: false, code: 'DRAFT_SCHEMA', issues: violations.slice(0, MAX_ISSUES) };
  return { ok: true, draft: deepFreeze(draft) };
}

/** The Draft as the run keeps it: the model's, each analysis item's `refs` replaced by the ids they name. */
function citingCallIds(answer: DraftAnswer, calls: readonly string[]): DiagnosisDraft {
  return {
    ...answer,
    analysis: answer.analysis.map(({ refs, ...item }) => ({
      type: item.type,
      statement: item.statement,
      evidence_status: item.evidence_status,
      tool_call_ids: citedCallIds(refs, calls),
      scope: item.scope,
    })),
  };
}

/**
 * The tool call ids an item's citations name. A ref `n` is this run's `n`-th call (`calls[n - 1]`, the order the
 * harness numbered and showed them in); a string is an id as it is (a past incident's `past-incident:<runId>`, or a
 * call's own id). NOTE: a ref that names no call of this run (0, negative, past the last call) becomes `#n`, which no
 * check can have (a checked tool call id never holds `#`): the EvidenceGuard refuses it as an unknown citation,
 * exactly as an id the run never saw, and the audit keeps what the model wrote.
 */
function citedCallIds(refs: readonly (number | string)[], calls: readonly string[]): string[] {
  return refs.map((ref) => (typeof ref === 'string' ? ref : (calls[ref - 1] ?? `#${ref}`)));
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
