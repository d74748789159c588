import type { ToolName } from './tool-name.ts';

export type CheckEvaluation = 'GAINED' | 'NO_GAIN' | 'PENDING' | null;

/** One executed business tool call of the run (its canonical check). */
export interface ProgressCheck {
  toolCallId: string;
  toolName: ToolName;
  status: 'READY' | 'ERROR';
  empty: boolean;
  evaluation: CheckEvaluation;
}

/** The bounded, safe summary of a run's progress: what was checked and how the model judged it. */
export interface ProgressSnapshot {
  modelCalls: number;
  toolCalls: number;
  rejectedToolCalls: number;
  totalTokens: number;
  checks: ReadonlyArray<Readonly<ProgressCheck>>;
}
