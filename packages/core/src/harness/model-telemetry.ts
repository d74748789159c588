import { tracingChannel } from 'node:diagnostics_channel';
import { AI_SDK_TELEMETRY_TRACING_CHANNEL, type TelemetryOptions } from 'ai';

/** The AI SDK's tracing channel, looked up once (the SDK looks it up again on every span). */
const channel = tracingChannel(AI_SDK_TELEMETRY_TRACING_CHANNEL);

/** The runtime context both loops pass: the run's ids, the only context telemetry may carry. */
type RunIds = { runId: string; sessionId: string };

const OFF: TelemetryOptions<RunIds> = Object.freeze({ isEnabled: false });

/**
 * The AI SDK telemetry of one of our model loops (`functionId`): the run's ids and never a prompt, a tool input or
 * an output (`recordInputs`/`recordOutputs: false`). NOTE: when nothing listens — no integration registered
 * (`registerTelemetry`) and no subscriber on the SDK's tracing channel, as in a deployment without an APM — it is
 * off: the SDK would otherwise build and filter a copy of every event of every round and tool call for no one
 * (≈ 40 µs of CPU a round, measured 2026-12-01). Decided per call, so a listener added later sees the next run, with
 * the same settings as always.
 */
export function modelTelemetry(settings: { functionId: string }): TelemetryOptions<RunIds> {
  const integrations = globalThis.AI_SDK_TELEMETRY_INTEGRATIONS?.length ?? 0;
  if (integrations === 0 && !channel.hasSubscribers) return OFF;
  return {
    functionId: settings.functionId,
    recordInputs: false,
    recordOutputs: false,
    includeRuntimeContext: { runId: true, sessionId: true },
  };
}
