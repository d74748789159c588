import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import {
  type AdapterResult,
  createRunContext,
  DiagnosisAgentOutputError,
  type DiagnosisExecution,
  DiagnosisExecutionError,
  MAX_OBSERVATION_BYTES,
  runDiagnosis,
  STOP_REASONS,
} from '@diagnosis/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFakeEvidence } from '../../../support/fake-evidence.ts';
import { createMemoryAudit } from '../../../support/memory-audit.ts';
import { KNOWLEDGE_INPUT, LOGS_INPUT, noConclusionDraft, T0 } from '../../../support/run-fixtures.ts';
import { observationsIn, scriptedModel, textRound, toolRound } from '../../../support/scripted-model.ts';

const SECRET_DETAIL = 'SECRET-DETAIL-mysql://root:pw@db';
const callArb = fc.record({
  name: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('lookup_knowledge', 'query_logs', 'query_mysql') },
    { weight: 1, arbitrary: fc.constantFrom('run_shell', '') },
  ),
  envelope: fc.oneof(
    { weight: 4, arbitrary: fc.constant('pending') },
    { weight: 3, arbitrary: fc.constant('missing') },
    { weight: 2, arbitrary: fc.constantFrom('wrong', 'extra-key', 'not-object') },
  ),
  input: fc.oneof(
    { weight: 6, arbitrary: fc.constant('valid') },
    { weight: 2, arbitrary: fc.constantFrom('same', 'invalid', 'unparseable') },
  ),
  evaluation: fc.constantFrom('GAINED', 'NO_GAIN'),
  reuseId: fc.boolean(),
});
const roundArb = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('tools' as const),
      calls: fc.array(callArb, { minLength: 1, maxLength: 5 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      text: fc.constantFrom('draft', 'garbage', 'fenced', ''),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('throw' as const) }) },
);
const adapterArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('ok', 'huge') },
  { weight: 3, arbitrary: fc.constantFrom('empty', 'error', 'bad-code', 'throw', 'malformed') },
);
const limitsArb = fc.record({
  maxModelCalls: fc.integer({ min: 1, max: 10 }),
  maxToolCalls: fc.integer({ min: 1, max: 6 }),
  noGainStopStreak: fc.integer({ min: 1, max: 3 }),
  maxToolCallsPerRound: fc.integer({ min: 1, max: 6 }),
  maxRejectedToolCalls: fc.integer({ min: 1, max: 8 }),
});

/** An adapter's answer of the given kind; 'ok' is shaped for the tool that asked. */
function adapterOutcome(kind: string, toolName: string): AdapterResult<unknown> {
  switch (kind) {
    case 'ok':
      if (toolName === 'query_logs') {
        return {
          status: 'OK',
          data: { matched: 1, lines: [{ timestamp: 't', level: 'ERROR', service: 's', message: 'm' }] },
        };
      }
      if (toolName === 'query_mysql') return { status: 'OK', data: { columns: ['a'], rows: [[1]], truncated: false } };
      return { status: 'OK', data: { hits: [{ doc_id: 'd', title: 't', snippet: 's', score: 1 }] } };
    case 'huge':
      return {
        status: 'OK',
        data: {
          hits: Array.from({ length: 40 }, (_, index) => ({
            doc_id: `d${index}`,
            title: 't'.repeat(500),
            snippet: '证'.repeat(5_000),
            score: 1,
          })),
          matched: 40,
          lines: Array.from({ length: 40 }, () => ({
            timestamp: 't',
            level: 'E',
            service: 's',
            message: '日'.repeat(2_000),
          })),
          columns: Array.from({ length: 20 }, (_, index) => `c${index}`),
          rows: Array.from({ length: 40 }, () => Array.from({ length: 20 }, () => '值'.repeat(500))),
          truncated: false,
        },
      };
    case 'empty':
      return { status: 'EMPTY' };
    case 'error':
      return { status: 'ERROR', code: 'UNAVAILABLE', detail: SECRET_DETAIL };
    case 'bad-code':
      return { status: 'ERROR', code: SECRET_DETAIL, detail: SECRET_DETAIL };
    case 'malformed':
      return { status: 'OK', data: { secret: SECRET_DETAIL } };
    default:
      throw new Error(SECRET_DETAIL);
  }
}

function businessInput(name: string, kind: string, index: number): unknown {
  if (kind === 'invalid') return { query: 42, service: [] };
  const suffix = kind === 'same' ? '' : String(index);
  if (name === 'query_logs') return { ...LOGS_INPUT, keyword: `k${suffix}` };
  if (name === 'query_mysql') return { query_name: 'payment_channel_config', params: { channel: `c${suffix}` } };
  return { ...KNOWLEDGE_INPUT, query: `q${suffix}` };
}

/** The id the model should evaluate: the latest OK observation it has seen, if any. */
function pendingIdIn(call: LanguageModelV4CallOptions): string | undefined {
  const observations = observationsIn(call.prompt);
  const last = observations.findLast(
    (observation) => observation.evidence_status !== 'REJECTED' && observation.evidence_status !== 'STOP_REQUIRED',
  );
  return last?.requires_evaluation === true ? (last.tool_call_id as string) : undefined;
}

describe('runDiagnosis — properties under random model and adapter behaviour', () => {
  it('keeps every harness invariant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(roundArb, { minLength: 1, maxLength: 10 }),
        fc.array(adapterArb, { minLength: 1, maxLength: 10 }),
        limitsArb,
        async (rounds, adapterKinds, limits) => {
          let idCounter = 0;
          let lastId = 'none';
          const script = rounds.map((round) => (call: LanguageModelV4CallOptions): LanguageModelV4GenerateResult => {
            if (round.kind === 'throw') throw new Error(SECRET_DETAIL);
            if (round.kind === 'text') {
              const draft = JSON.stringify(noConclusionDraft());
              const texts = { draft, garbage: 'not json', fenced: `\`\`\`json\n${draft}\n\`\`\``, '': '' };
              return textRound(texts[round.text]);
            }
            const pending = pendingIdIn(call);
            return toolRound(
              round.calls.map((spec) => {
                idCounter += 1;
                const id = spec.reuseId ? lastId : `call_${idCounter}`;
                lastId = id;
                const input = businessInput(spec.name, spec.input, idCounter);
                const previous =
                  spec.envelope === 'pending' && pending !== undefined
                    ? { previous_observation: { tool_call_id: pending, evaluation: spec.evaluation } }
                    : spec.envelope === 'wrong'
                      ? { previous_observation: { tool_call_id: 'call_bogus', evaluation: spec.evaluation } }
                      : {};
                const envelopeValue =
                  spec.envelope === 'not-object'
                    ? [input]
                    : { ...previous, input, ...(spec.envelope === 'extra-key' ? { enterprise_id: 'E2002' } : {}) };
                return { id, name: spec.name, input: spec.input === 'unparseable' ? '{"input": ' : envelopeValue };
              }),
            );
          });
          let adapterIndex = 0;
          const handler = (call: { toolName: string }) =>
            adapterOutcome(adapterKinds[adapterIndex++ % adapterKinds.length] ?? 'ok', call.toolName);
          const fake = createFakeEvidence({ lookup_knowledge: handler, query_logs: handler, query_mysql: handler });
          const audit = createMemoryAudit();
          const model = scriptedModel(script);
          const run = createRunContext({
            runId: 'r',
            sessionId: 's',
            enterpriseId: 'E1001',
            deadlineAt: T0 + 60_000,
            now: () => T0,
            limits,
          });

          let result: DiagnosisExecution | undefined;
          try {
            result = await runDiagnosis(
              { run, query: '订单失败' },
              { model, evidence: fake.evidence, audit: audit.hook },
            );
          } catch (error) {
            expect(
              error instanceof DiagnosisAgentOutputError || error instanceof DiagnosisExecutionError,
              `unexpected error ${String(error)}`,
            ).toBe(true);
            expect((error as Error).message).not.toContain('SECRET');
          }

          // Budgets.
          expect(model.doGenerateCalls.length).toBeLessThanOrEqual(limits.maxModelCalls);
          expect(fake.calls.length).toBeLessThanOrEqual(limits.maxToolCalls);

          // Floods: refusals audited never pass their limit; no call of a round that asked for too many reaches the
          // boundary, and such a round is the run's last; the run's tool items stay within the three limits.
          const refused = audit.tools.filter((event) => event.disposition === 'REJECTED');
          expect(refused.length).toBeLessThanOrEqual(limits.maxRejectedToolCalls);
          const flooded = audit.steps.filter((step) => step.toolCalls.length > limits.maxToolCallsPerRound);
          for (const step of flooded) {
            expect(audit.tools.filter((event) => event.stepNumber === step.stepNumber)).toEqual([]);
            expect(step.stepNumber).toBe(audit.steps.length);
          }
          if (flooded.length > 0 && result !== undefined) expect(result.stopReason).toBe('ROUND_TOOL_CALL_LIMIT');
          if (refused.length === limits.maxRejectedToolCalls && flooded.length === 0 && result !== undefined) {
            expect(result.stopReason).toBe('REJECTED_CALL_LIMIT');
          }
          expect(audit.tools.length).toBeLessThanOrEqual(
            limits.maxToolCalls + limits.maxRejectedToolCalls + limits.maxToolCallsPerRound,
          );

          // Exactly one canonical record and one audit event per executed call, with the framework id.
          const executed = audit.tools.filter((event) => event.disposition === 'EXECUTED');
          expect(executed.map((event) => event.toolCallId)).toEqual(fake.calls.map((call) => call.toolCallId));
          expect(new Set(executed.map((event) => event.toolCallId)).size).toBe(executed.length);
          if (result !== undefined) {
            expect(result.progress.checks.map((check) => check.toolCallId)).toEqual(
              fake.calls.map((call) => call.toolCallId),
            );
          }

          // No business call while a non-empty result waits for its evaluation: between an executed OK call and the
          // next executed call, some call (possibly one refused afterwards, e.g. as a duplicate) must have named it.
          let waiting: string | undefined;
          for (const event of audit.tools) {
            const envelope = event.input as { previous_observation?: { tool_call_id?: unknown } } | undefined;
            const named =
              typeof envelope === 'object' && envelope !== null
                ? envelope.previous_observation?.tool_call_id
                : undefined;
            if (waiting !== undefined && named === waiting) waiting = undefined;
            if (event.disposition !== 'EXECUTED') continue;
            expect(waiting, `call ${event.toolCallId} ran while ${waiting} waited for its evaluation`).toBeUndefined();
            if (event.observation.evidence_status === 'OK') waiting = event.toolCallId;
          }

          // Observations are bounded and never carry an adapter's detail.
          const observations = [
            ...audit.tools.map((event) => event.observation),
            ...model.doGenerateCalls.flatMap((call) => observationsIn(call.prompt)),
          ];
          for (const observation of observations) {
            const text = JSON.stringify(observation);
            expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MAX_OBSERVATION_BYTES);
            expect(text).not.toContain('SECRET');
          }

          // The result has one of the documented shapes.
          if (result !== undefined) {
            if (result.draft === null) expect(STOP_REASONS).toContain(result.stopReason);
            else expect(result.stopReason === null || STOP_REASONS.includes(result.stopReason)).toBe(true);
            expect(result.progress.modelCalls).toBe(model.doGenerateCalls.length);
          }
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 500) },
    );
  });
});
