import { tracingChannel } from 'node:diagnostics_channel';
import { AI_SDK_TELEMETRY_TRACING_CHANNEL } from 'ai';
import { describe, expect, it } from 'vitest';
import { modelTelemetry } from '../../../../packages/core/src/harness/model-telemetry.ts';
import { diagnose } from '../../../support/diagnose.ts';
import { noConclusionDraft } from '../../../support/run-fixtures.ts';
import { textRound } from '../../../support/scripted-model.ts';

// NOTE: no integration is registered in this file (registerTelemetry is process-global; see
// run-diagnosis.telemetry.test.ts for a registered one).
describe('modelTelemetry', () => {
  it('is off when no integration is registered and nothing subscribes to the SDK tracing channel', () => {
    expect(modelTelemetry({ functionId: 'diagnosis_agent' })).toEqual({ isEnabled: false });
  });

  it('gives a tracing channel subscriber the run ids and no prompt or output', async () => {
    const channel = tracingChannel(AI_SDK_TELEMETRY_TRACING_CHANNEL);
    const events: Record<string, unknown>[] = [];
    const start = (message: unknown) => {
      const { type, event } = message as { type: string; event: Record<string, unknown> };
      if (type === 'generateText') events.push(event);
    };
    const handlers = { start, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
    channel.subscribe(handlers);
    try {
      expect(modelTelemetry({ functionId: 'diagnosis_agent' })).toMatchObject({ recordInputs: false });
      await diagnose([textRound(JSON.stringify(noConclusionDraft()))]);
    } finally {
      channel.unsubscribe(handlers);
    }

    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      functionId: 'diagnosis_agent',
      runtimeContext: { runId: 'run-1', sessionId: 'session-1' },
      recordInputs: false,
      recordOutputs: false,
      messages: [],
      instructions: undefined,
    });
    expect(modelTelemetry({ functionId: 'diagnosis_agent' })).toEqual({ isEnabled: false });
  });
});
