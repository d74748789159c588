import { readFileSync } from 'node:fs';
import type { DeepSeekResponse } from './scripted-model-server.ts';

/**
 * A hand-written conversation in DeepSeek's wire format: the agent's rounds and the SemanticGuard judge's answer, one
 * response per request. Scripted, never a recording of a live model.
 */
export interface ScriptedConversation {
  description: string;
  enterpriseId: string;
  query: string;
  /** The agent's rounds. */
  responses: DeepSeekResponse[];
  /** The SemanticGuard judge's answer. */
  judgeResponses: DeepSeekResponse[];
}

/** The demo's scripted E1001 conversation (examples/demo/e1001-scripted-conversation.json). */
export const E1001_SCRIPTED_CONVERSATION = new URL(
  '../../../examples/demo/e1001-scripted-conversation.json',
  import.meta.url,
);

/**
 * The same incident's scripted conversation for a run an alarm starts (examples/demo/e1001-alarm-scripted-conversation
 * .json): the demo's checks, with claims that hold for logs clamped to the incident window, which ends when the alarm
 * arrived (only the failure's first seconds are there).
 */
export const E1001_ALARM_SCRIPTED_CONVERSATION = new URL(
  '../../../examples/demo/e1001-alarm-scripted-conversation.json',
  import.meta.url,
);

/** Reads a scripted conversation (by default the demo's), a fresh copy each time. */
export function loadScriptedConversation(path: URL | string = E1001_SCRIPTED_CONVERSATION): ScriptedConversation {
  return JSON.parse(readFileSync(path, 'utf8')) as ScriptedConversation;
}
