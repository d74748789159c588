/**
 * The prefix the provider can cache across runs: the Diagnose function's composition root (the DeepSeek profile's
 * provider) against the loopback DeepSeek server, two runs of two enterprises at different times in different zones.
 * Their requests, rendered as the model reads them (packages/devkit/src/request-tokens.ts), begin with the same
 * instructions and tool schemas byte for byte; everything of the run (its time, zone, question) comes after them.
 */
import { DEVELOPMENT_MASKING_SECRET, runDiagnosis } from '@diagnosis/core';
import { parseDiagnosisSettings } from '@diagnosis/core/config';
import { requestSegments, startDeepSeekServer, wireText } from '@diagnosis/devkit';
import { describe, expect, it } from 'vitest';
import { buildDiagnosisDependencies } from '../../../functions/diagnose/dependencies.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { draftAnswer, supportedDraft, T0, testRun } from '../../support/run-fixtures.ts';

async function firstRequest(run: ReturnType<typeof testRun>, query: string) {
  const server = await startDeepSeekServer([wireText(draftAnswer(supportedDraft([])))]);
  try {
    const settings = parseDiagnosisSettings({
      DIAGNOSIS_TABLE_NAME: 'prompt-prefix-test',
      DIAGNOSIS_MODEL_PROFILE: 'deepseek',
      DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
      DIAGNOSIS_MODEL_API_KEY: 'scripted-test-no-key',
      SEMANTIC_GUARD: 'off',
      MASKING_SECRET: DEVELOPMENT_MASKING_SECRET,
    });
    const { evidence } = createFakeEvidence();
    const deps = await buildDiagnosisDependencies(settings, undefined, evidence);
    await runDiagnosis({ run, query }, { model: deps.model, evidence }).catch(() => undefined);
    const [body] = server.requests;
    if (body === undefined) throw new Error('the run sent no request');
    return body;
  } finally {
    await server.close();
  }
}

describe('the agent’s requests — Requirement: one cacheable prefix for every run of every enterprise', () => {
  it('begins two runs of different enterprises, times and zones with the same instructions and tools, byte for byte', async () => {
    const first = await firstRequest(testRun({ enterpriseId: 'E1001' }), 'E1001 的订单从 14:07 开始失败，为什么？');
    const second = await firstRequest(
      testRun({
        runId: 'run-2',
        sessionId: 'session-2',
        enterpriseId: 'E2002',
        now: () => T0 + 9 * 3_600_000 + 17_000,
        deadlineAt: T0 + 9 * 3_600_000 + 77_000,
        timeZone: 'America/New_York',
      }),
      'E2002 的支付回调从 09:30 起大量超时',
    );
    const [instructions, tools, ...rest] = requestSegments(first);
    const [otherInstructions, otherTools, ...otherRest] = requestSegments(second);

    expect([instructions?.part, tools?.part]).toEqual(['instructions', 'tools']);
    expect(otherInstructions?.text).toBe(instructions?.text);
    expect(otherTools?.text).toBe(tools?.text);
    // Everything of the run is after the prefix: its question, time and zone, in the user message.
    const prefix = `${instructions?.text}${tools?.text}`;
    for (const [body, segments] of [
      [first, rest],
      [second, otherRest],
    ] as const) {
      const messages = body.messages as { role: string; content: string }[];
      const input = JSON.parse(messages.find((message) => message.role === 'user')?.content ?? '{}') as {
        query: string;
        now: string;
        timezone: string;
      };
      for (const value of [input.query, input.now, input.timezone]) {
        expect(prefix).not.toContain(value);
        expect(segments.map((segment) => segment.text).join('')).toContain(value);
      }
    }
  });
});
