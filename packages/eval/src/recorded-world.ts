/**
 * A recorded world: the evidence a captured run saw, replayed. `world/recorded.json` holds, for each tool call the
 * run executed, its business input as the audit stored it and the observation the model saw; the replay's adapters
 * answer an input whose canonical form (tool name and keys sorted, exactly the harness's duplicate check) is in the
 * recording with that observation, and any other input with the stable `NOT_RECORDED` error — never made-up evidence.
 *
 * NOTE: inputs are matched as the recording holds them, never re-masked or re-keyed: the audit holds masked text and
 * pseudonyms (issue 22), and a pseudonym the recording holds is a valid argument inside this replay, and only here —
 * the eval hands the replay run {@link recordedPseudonymsOf} (`recordedReplay`), so its tool boundary passes them
 * verbatim instead of refusing them as unknown — while the replay serves the recorded observations as they are
 * (masking them again keeps every pseudonym and marker whole).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import {
  type AdapterResult,
  canonicalOf,
  ENTERPRISE_ID_PATTERN,
  type EvidenceAdapter,
  type EvidenceAdapters,
  type MysqlQueryDescriptor,
  PSEUDONYM_PATTERN,
  TOOL_NAMES,
  type ToolCallRequest,
  type ToolName,
} from '@diagnosis/core';
import * as v from 'valibot';

const RECORDING_FILE = 'recorded.json';
const MAX_RECORDING_BYTES = 4 * 1024 * 1024;
/** A run executes at most a few dozen calls; a follow-up's previous turn adds its own. */
const MAX_RECORDED_CALLS = 200;

const recordedCallSchema = v.strictObject({
  toolName: v.picklist(TOOL_NAMES),
  /** The business input as the audit stored it (the envelope's `input`). */
  input: v.unknown(),
  /** Exactly what the model saw (its `tool_call_id` is the recorded call's). */
  observation: v.looseObject({
    tool_call_id: v.pipe(v.string(), v.maxLength(200)),
    evidence_status: v.picklist(['OK', 'EMPTY', 'ERROR']),
    data: v.optional(v.unknown()),
    code: v.optional(v.pipe(v.string(), v.regex(/^[A-Z][A-Z0-9_]{0,63}$/))),
  }),
});

const recordedWorldSchema = v.strictObject({
  version: v.literal(1),
  /** A recording of what a real run of this deployment saw: never hand-written. */
  kind: v.literal('recorded'),
  description: v.pipe(v.string(), v.minLength(1), v.maxLength(2_000)),
  /** The only tenant whose calls the recording answers. */
  enterpriseId: v.pipe(v.string(), v.regex(ENTERPRISE_ID_PATTERN)),
  calls: v.pipe(v.array(recordedCallSchema), v.maxLength(MAX_RECORDED_CALLS)),
});
export type RecordedWorld = v.InferOutput<typeof recordedWorldSchema>;
export type RecordedCall = RecordedWorld['calls'][number];

/** `world/recorded.json` of a scenario folder, validated; undefined when there is none. */
export function loadRecordedWorld(worldDir: string | undefined): RecordedWorld | { problems: string[] } | undefined {
  if (worldDir === undefined) return undefined;
  const path = `${worldDir}/${RECORDING_FILE}`;
  if (!existsSync(path)) return undefined;
  if (statSync(path).size > MAX_RECORDING_BYTES)
    return { problems: [`${RECORDING_FILE} is larger than ${MAX_RECORDING_BYTES} bytes`] };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return { problems: [`${RECORDING_FILE} is not valid JSON`] };
  }
  const result = v.safeParse(recordedWorldSchema, value);
  if (result.success) return result.output;
  return {
    problems: result.issues
      .slice(0, 8)
      .map((issue) => `${RECORDING_FILE} ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`),
  };
}

/**
 * Every pseudonym the recording holds, in its inputs and its observations: the arguments its replay may pass as they
 * are. Nothing else of the recording leaves it.
 */
export function recordedPseudonymsOf(recording: RecordedWorld): ReadonlySet<string> {
  const tokens = new Set<string>();
  for (const call of recording.calls) {
    for (const match of JSON.stringify([call.input, call.observation]).matchAll(PSEUDONYM_PATTERN))
      tokens.add(match[0]);
  }
  return tokens;
}

/**
 * The evidence adapters of a recorded world. An executed call of the recording answers its input (the first one
 * recorded, when the run asked the same twice); anything else — another input, another tenant — is `NOT_RECORDED`.
 * `catalog` is what query_mysql lists to the model (the audit does not hold the deployment's).
 */
export function createRecordedEvidence(
  recording: RecordedWorld,
  catalog: readonly MysqlQueryDescriptor[],
): EvidenceAdapters & { readonly asked: readonly { toolName: ToolName; recorded: boolean }[] } {
  const answers = new Map<string, RecordedCall['observation']>();
  for (const call of recording.calls) {
    const key = canonicalOf({ toolName: call.toolName, input: { input: call.input } });
    if (!answers.has(key)) answers.set(key, call.observation);
  }
  const asked: { toolName: ToolName; recorded: boolean }[] = [];
  const adapter = <I, D>(): EvidenceAdapter<I, D> => ({
    async execute(call: ToolCallRequest<I>): Promise<AdapterResult<D>> {
      const observation =
        call.enterpriseId === recording.enterpriseId
          ? answers.get(canonicalOf({ toolName: call.toolName, input: { input: call.input } }))
          : undefined;
      asked.push({ toolName: call.toolName, recorded: observation !== undefined });
      if (observation === undefined) return { status: 'ERROR', code: 'NOT_RECORDED', detail: 'not in the recording' };
      if (observation.evidence_status === 'OK') return { status: 'OK', data: observation.data as D };
      if (observation.evidence_status === 'EMPTY') return { status: 'EMPTY' };
      return { status: 'ERROR', code: observation.code ?? 'INTERNAL', detail: 'recorded error' };
    },
  });
  return {
    asked,
    lookup_knowledge: adapter(),
    query_logs: adapter(),
    query_mysql: Object.assign(adapter(), { catalog }) as EvidenceAdapters['query_mysql'],
  };
}
