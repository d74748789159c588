import { registerTelemetry } from 'ai';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { noConclusionDraft } from '../../../support/run-fixtures.ts';
import { textRound } from '../../../support/scripted-model.ts';

// NOTE: registerTelemetry is process-global; this file is isolated by vitest's per-file module isolation.
describe('runDiagnosis — telemetry', () => {
  it('passes runId and sessionId to the AI SDK telemetry of the call and records no prompt or output', async () => {
    const starts: Record<string, unknown>[] = [];
    registerTelemetry({ onStart: (event) => void starts.push(event as unknown as Record<string, unknown>) });

    await diagnose([textRound(JSON.stringify(noConclusionDraft()))]);

    expect(starts).toHaveLength(1);
    expect(starts[0]).toMatchObject({
      functionId: 'diagnosis_agent',
      runtimeContext: { runId: 'run-1', sessionId: 'session-1' },
      recordInputs: false,
      recordOutputs: false,
      messages: [],
    });
  });
});
