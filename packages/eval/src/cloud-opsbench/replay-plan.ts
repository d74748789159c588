/**
 * The experts' steps of a case mapped onto our tools: what the replay's scripted agent asks, in order. Path 1's steps,
 * then path 2's that ask something new (one run per case, the union of both experts' evidence):
 * - `GetErrorLogs(service)` → `query_logs` of that service in the case's window, level ERROR;
 * - `GetRecentLogs(service)` → `query_logs` of that service in the window;
 * - `GetResources(kind)` → `query_logs` of the `kubernetes` stream, keyword `<kind>/`;
 * - `DescribeResource(kind, name)` → `query_logs` of the `kubernetes` stream, keyword `<kind>/<name>` (the object's
 *   state and its events);
 * - `GetResources(events)` → `query_logs` of the `kubernetes` stream, keyword `event ` (every event record).
 * Steps with no counterpart (`GetAppYAML`, `GetAlerts`, `GetClusterConfiguration`, `CheckServiceConnectivity`,
 * `CheckNodeServiceStatus`, `GetServiceDependencies`, and any resource kind the stream does not hold) are skipped and
 * counted by tool; a step asking what an earlier one asked is asked once; past the run's tool-call budget the rest
 * are counted as over budget. Each call is at most 20 lines, the observation's own bound.
 */
import { createHash } from 'node:crypto';
import type { LogsInput } from '@diagnosis/core';
import type { ExpertStep } from './golden-trajectory.ts';
import { KUBERNETES_STREAM, recordKind } from './kubernetes-state.ts';

const REPLAY_LINE_LIMIT = 20;

export interface PlannedCall {
  toolCallId: string;
  input: LogsInput;
  /** The expert step it replays, e.g. `GetErrorLogs(ts-order-service)`. */
  step: string;
  /** `errors` for an expert's error-log step (the steps the evidence recall counts). */
  purpose: 'errors' | 'recent' | 'kubernetes';
}

export interface ReplayPlan {
  calls: PlannedCall[];
  /** Expert steps with no counterpart, by tool. */
  skipped: Record<string, number>;
  /** Steps that repeated an earlier call. */
  repeated: number;
  /** Mappable steps past the tool-call budget. */
  overBudget: number;
}

export interface PlanContext {
  caseKey: string;
  window: { start: string; end: string };
  /** The case's log streams: a log step of a service without one is skipped. */
  streams: ReadonlySet<string>;
  /** The run's tool-call budget (DEFAULT_RUN_LIMITS.maxToolCalls). */
  maxCalls: number;
}

/** A DeepSeek-style id (`call_00_` and 24 letters and digits), derived from the case and the call's position. */
function toolCallId(caseKey: string, index: number): string {
  const digest = createHash('sha256').update(`${caseKey}#${index}`).digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let id = '';
  for (const byte of digest.subarray(0, 24)) id += alphabet[byte % alphabet.length];
  return `call_00_${id}`;
}

type Mapped = Omit<PlannedCall, 'toolCallId'> | { skip: string };

/** kubectl's words for events (`kubectl get events`, `event`, `ev`). */
const EVENT_WORDS = new Set(['events', 'event', 'ev']);

function mapStep(step: ExpertStep, context: PlanContext): Mapped {
  const window = { start_time: context.window.start, end_time: context.window.end, limit: REPLAY_LINE_LIMIT };
  const service = step.args.service_name ?? '';
  switch (step.tool) {
    case 'GetErrorLogs':
    case 'GetRecentLogs': {
      if (!context.streams.has(service)) return { skip: `${step.tool} (no log stream)` };
      const errors = step.tool === 'GetErrorLogs';
      return {
        input: { service, ...window, ...(errors ? { level: 'ERROR' as const } : {}) },
        step: `${step.tool}(${service})`,
        purpose: errors ? 'errors' : 'recent',
      };
    }
    case 'GetResources':
    case 'DescribeResource': {
      const resource = step.args.resource_type ?? '';
      if (step.tool === 'GetResources' && EVENT_WORDS.has(resource.toLowerCase())) {
        if (!context.streams.has(KUBERNETES_STREAM)) return { skip: `${step.tool} (kind not in the stream)` };
        // NOTE: every event record starts `event <kind>/<name>` (kubernetes-state.ts).
        return {
          input: { service: KUBERNETES_STREAM, ...window, keyword: 'event ' },
          step: `${step.tool}(${resource})`,
          purpose: 'kubernetes',
        };
      }
      const kind = recordKind(resource);
      if (kind === undefined || !context.streams.has(KUBERNETES_STREAM))
        return { skip: `${step.tool} (kind not in the stream)` };
      const name = step.tool === 'DescribeResource' ? (step.args.name ?? '') : '';
      if (step.tool === 'DescribeResource' && name === '') return { skip: `${step.tool} (no name)` };
      return {
        input: { service: KUBERNETES_STREAM, ...window, keyword: `${kind}/${name}`.slice(0, 200) },
        step: `${step.tool}(${[step.args.resource_type, name].filter((part) => part).join(', ')})`,
        purpose: 'kubernetes',
      };
    }
    default:
      return { skip: step.tool };
  }
}

/** The replay plan of a case's golden paths (see the module's note). */
export function buildReplayPlan(paths: readonly (readonly ExpertStep[])[], context: PlanContext): ReplayPlan {
  const calls: PlannedCall[] = [];
  const skipped: Record<string, number> = {};
  const asked = new Set<string>();
  let repeated = 0;
  let overBudget = 0;
  for (const step of paths.flat()) {
    const mapped = mapStep(step, context);
    if ('skip' in mapped) {
      skipped[mapped.skip] = (skipped[mapped.skip] ?? 0) + 1;
      continue;
    }
    const key = JSON.stringify(mapped.input);
    if (asked.has(key)) {
      repeated += 1;
      continue;
    }
    asked.add(key);
    if (calls.length >= context.maxCalls) {
      overBudget += 1;
      continue;
    }
    calls.push({ ...mapped, toolCallId: toolCallId(context.caseKey, calls.length) });
  }
  return { calls, skipped, repeated, overBudget };
}
