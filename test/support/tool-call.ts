import type { ToolCallRequest, ToolName } from '@diagnosis/core';

let counter = 0;

/** A tool call as the harness hands it to an adapter. */
export function toolCall<I>(
  toolName: ToolName,
  input: I,
  options: { enterpriseId?: string; signal?: AbortSignal } = {},
): ToolCallRequest<I> {
  counter += 1;
  return {
    runId: 'run-adapter',
    sessionId: 'session-adapter',
    enterpriseId: options.enterpriseId ?? 'E1001',
    toolCallId: `call-${counter}`,
    toolName,
    input,
    signal: options.signal ?? new AbortController().signal,
  };
}

export const EXAMPLES = new URL('../../examples/', import.meta.url);
export const examplePath = (relative: string) => new URL(relative, EXAMPLES).pathname;
