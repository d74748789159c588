import type { ToolName } from '../tools/evidence-adapter.ts';
import type { PseudonymBatchEvent } from '../tools/masking/pseudonym-map.ts';
import type { Observation } from '../tools/observation.ts';

export type { PseudonymBatchEvent };

export type ContentSource = 'PROVIDER_REASONING+ASSISTANT_TEXT' | 'PROVIDER_REASONING' | 'ASSISTANT_TEXT' | 'NONE';

/**
 * Who made a model call: the Diagnosis Agent (a round of its loop) or the SemanticGuard's judge (its one call after
 * the loop, never part of the agent's conversation).
 */
export const MODEL_ROLES = Object.freeze(['AGENT', 'JUDGE'] as const);
export type ModelRole = (typeof MODEL_ROLES)[number];

/** One model round as the harness saw it. Raw texts are capped at {@link MAX_AUDIT_TEXT_CHARS} characters each. */
export interface ModelStepEvent {
  sessionId: string;
  runId: string;
  /** 1-based round number within the run (the judge's call is numbered after the agent's rounds). */
  stepNumber: number;
  /** Absent: the agent's round. */
  role?: ModelRole;
  modelId: string;
  finishReason: string;
  usage: { inputTokens: number; outputTokens: number; reasoningTokens?: number; cachedInputTokens?: number };
  /**
   * True when the provider reported no usage for the round (or 0 tokens beside a prompt and output) and `usage` holds
   * the harness's conservative estimate from the request's and response's sizes; absent or false: as reported.
   */
  usageEstimated?: boolean;
  /** Only what the provider returned as reasoning; '' when it returned none (never derived from the answer). */
  reasoningContent: string;
  /** The visible text and/or the tool-call plan (names and inputs); never tool results. */
  assistantText: string;
  contentSource: ContentSource;
  /** UTF-8 bytes of both texts after capping. */
  contentBytes: number;
  reasoningAvailable: boolean;
  /** True when either text was cut to the cap. */
  truncated: boolean;
  toolCalls: { toolCallId: string; toolName: string }[];
  startedAt: number;
  endedAt: number;
}

export type ToolDisposition = 'EXECUTED' | 'REJECTED' | 'STOPPED';

/** One tool call that reached the tool boundary, whatever became of it. */
export interface ToolInvocationEvent {
  sessionId: string;
  runId: string;
  /** The round whose model output requested this call. */
  stepNumber: number;
  /** Exactly the framework's tool call id. */
  toolCallId: string;
  toolName: ToolName;
  disposition: ToolDisposition;
  /** READY (OK or EMPTY) or ERROR for executed calls; null when the business tool did not run. */
  status: 'READY' | 'ERROR' | null;
  empty: boolean;
  /** The stable error, rejection or stop code; null for READY. */
  code: string | null;
  /** The envelope as the model sent it (pseudonyms as the model wrote them, never the values restored for the adapter). */
  input: unknown;
  /** Exactly what the model saw. */
  observation: Observation;
  /** The adapter's data (unprojected, masked like the observation) for executed calls, else null. Stores cap its size. */
  result: unknown;
  /** The adapter's audit-only detail of an ERROR (masked); never shown to the model. */
  errorDetail: string | null;
  startedAt: number;
  endedAt: number;
}

/**
 * Port: the run's audit trail. The harness calls it itself and awaits it; a rejection fails the run closed with
 * AUDIT_FAILED (an unaudited run is never reported as a success). Implementations should return quickly
 * (write-behind) and surface write failures at their own flush.
 */
export interface AuditHook {
  onModelStep(event: ModelStepEvent): Promise<void>;
  onToolInvocation(event: ToolInvocationEvent): Promise<void>;
  /**
   * The run's new pseudonyms, before the tool invocation (or model input) that first shows them. A hook that keeps an
   * audit stores them apart from everything else (`PSEUDONYMS#<runId>`); one without it loses only the way back.
   */
  onPseudonyms?(event: PseudonymBatchEvent): Promise<void>;
}

export const MAX_AUDIT_TEXT_CHARS = 32_000;
