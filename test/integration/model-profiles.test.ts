import { DiagnosisAgentOutputError, type RunContextInit, runDiagnosis } from '@diagnosis/core';
import {
  MODEL_PROFILE_NAMES,
  type ModelProfileName,
  modelProfile,
  parseDiagnosisSettings,
  providerJsonSchema,
} from '@diagnosis/core/config';
import { afterEach, describe, expect, it } from 'vitest';
import { buildDiagnosisDependencies } from '../../functions/diagnose/dependencies.ts';
import { draftAnswerJsonSchema } from '../../packages/core/src/draft/diagnosis-draft.ts';
import { startDeepSeekServer, type WireScript } from '../support/deepseek-server.ts';
import { createFakeEvidence } from '../support/fake-evidence.ts';
import { createMemoryAudit } from '../support/memory-audit.ts';
import { PROFILE_WIRES } from '../support/provider-wire.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft, testRun } from '../support/run-fixtures.ts';

const CALL_ID = 'call_00_lCIkdHRa7AKmCG3TlxXz1061';
let closeServer: (() => Promise<void>) | undefined;

afterEach(async () => {
  await closeServer?.();
  closeServer = undefined;
});

/** One run through the composition root's model for that profile, against a loopback server in its wire format. */
async function diagnoseWith(
  profile: ModelProfileName,
  script: WireScript,
  options: { limits?: Record<string, number>; run?: Partial<RunContextInit> } = {},
) {
  const server = await startDeepSeekServer(script);
  closeServer = server.close;
  const settings = parseDiagnosisSettings({
    DIAGNOSIS_TABLE_NAME: 'profiles-test',
    DIAGNOSIS_MODEL_PROFILE: profile,
    DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
    DIAGNOSIS_MODEL_API_KEY: 'sk-profile-test',
    ...(profile === 'openai-compatible' ? { DIAGNOSIS_MODEL_ID: 'Qwen/Qwen3-8B' } : {}),
    SEMANTIC_GUARD: 'off',
    MASKING_SECRET: 'profiles-test-masking-secret-of-32-characters',
  });
  const fake = createFakeEvidence();
  const deps = await buildDiagnosisDependencies(settings, undefined, fake.evidence);
  const audit = createMemoryAudit();
  const outcome = await runDiagnosis(
    {
      run: testRun({ ...options.run, limits: options.limits ?? {} }),
      query: 'E1001 的订单从 14:05 开始失败，为什么？',
    },
    { model: deps.model, evidence: fake.evidence, audit: audit.hook },
  ).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { outcome, server, audit };
}

const EXPECTED_FORMAT: Record<ModelProfileName, unknown> = {
  deepseek: { type: 'json_object' },
  openai: {
    type: 'json_schema',
    json_schema: { name: 'DiagnosisDraft', strict: true, schema: providerJsonSchema(draftAnswerJsonSchema()) },
  },
  qwen: {
    type: 'json_schema',
    json_schema: { name: 'DiagnosisDraft', strict: true, schema: providerJsonSchema(draftAnswerJsonSchema()) },
  },
  'openai-compatible': { type: 'json_object' },
};

describe.each(MODEL_PROFILE_NAMES)('the %s profile over its wire format', (profile) => {
  const wire = PROFILE_WIRES[profile];

  it('sends no response_format on the tool round and the profile’s JSON format on the Draft round (tools kept with tool_choice none where the profile allows), and parses the Draft', async () => {
    const { outcome, server, audit } = await diagnoseWith(
      profile,
      [
        wire.toolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }]),
        wire.text(draftAnswer(supportedDraft([CALL_ID]))),
      ],
      { limits: { maxToolCalls: 1 } },
    );

    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result.stopReason).toBe('TOOL_CALL_BUDGET');
    expect(outcome.result.draft?.analysis[0]?.tool_call_ids).toEqual([CALL_ID]);
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.tools).toHaveLength(3);
    expect(server.requests[0]).not.toHaveProperty('response_format');
    if (modelProfile(profile).finalRoundKeepsTools) {
      // The earlier round's tools, byte for byte, with no call allowed: the prompt prefix stays the cached one.
      expect(JSON.stringify(server.requests[1]?.tools)).toBe(JSON.stringify(server.requests[0]?.tools));
      expect(server.requests[1]?.tool_choice).toBe('none');
    } else {
      expect(server.requests[1]).not.toHaveProperty('tools');
      expect(server.requests[1]).not.toHaveProperty('tool_choice');
    }
    expect(server.requests[1]?.response_format).toEqual(EXPECTED_FORMAT[profile]);
    expect(server.requests[1]?.model).toBe(
      profile === 'openai-compatible' ? 'Qwen/Qwen3-8B' : modelProfile(profile).defaultModelId,
    );
    expect(audit.steps[0]?.toolCalls).toMatchObject([{ toolCallId: CALL_ID, toolName: 'query_logs' }]);
  });

  it('keeps the strict parse: a fenced Draft in the Draft round fails as DRAFT_NOT_JSON', async () => {
    const fenced = `\`\`\`json\n${draftAnswer(supportedDraft([CALL_ID]))}\n\`\`\``;
    const { outcome, server } = await diagnoseWith(
      profile,
      [wire.toolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }]), wire.text(fenced)],
      { limits: { maxToolCalls: 1 } },
    );
    expect(server.requests[1]?.response_format).toEqual(EXPECTED_FORMAT[profile]);
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error).toBeInstanceOf(DiagnosisAgentOutputError);
    expect(outcome.error).toMatchObject({ code: 'DRAFT_NOT_JSON' });
  });
});

describe('the Draft format on a run that ends on its own', () => {
  it('sends no response_format on any round that offers tools, even the one the model answers in', async () => {
    const wire = PROFILE_WIRES.openai;
    const { outcome, server } = await diagnoseWith('openai', [
      wire.toolCalls([{ id: CALL_ID, name: 'query_logs', arguments: envelope(LOGS_INPUT) }]),
      wire.text(draftAnswer(supportedDraft([CALL_ID]))),
    ]);
    expect(outcome.ok && outcome.result.stopReason).toBe(null);
    expect(server.requests).toHaveLength(2);
    for (const request of server.requests) {
      expect(request.tools).toHaveLength(3);
      expect(request).not.toHaveProperty('response_format');
    }
  });
});
