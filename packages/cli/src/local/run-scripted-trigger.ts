/**
 * An alarm or webhook event through the real Trigger functions with the demo's scripted model (`trigger
 * --scripted-model`, `demo --alarm`): a loopback server answers every model request from the hand-written alarm
 * conversation of examples/demo/, in DeepSeek's wire format; everything else is real. NOTE: the alarm's own
 * conversation, not the demo's: a triggered run's logs are clamped to its incident window (to the alarm's arrival),
 * and a scripted example claims only what its observations show.
 */
import type { CliIo } from '../command-line.ts';
import { SCRIPTED_JUDGE_MODEL_ID } from '../render/scripted-judge.ts';
import { type LocalTriggerOptions, runLocalTrigger } from './run-local-trigger.ts';

/** The trigger with the demo's scripted model on a loopback server (the SemanticGuard in enforce, as deployed). */
export async function runScriptedTrigger(
  options: Omit<LocalTriggerOptions, 'settings' | 'banner'>,
  io: CliIo,
): Promise<number> {
  const { E1001_ALARM_SCRIPTED_CONVERSATION, loadScriptedConversation, startDeepSeekServer } = await import(
    '@diagnosis/devkit'
  );
  const conversation = loadScriptedConversation(E1001_ALARM_SCRIPTED_CONVERSATION);
  // With --slack, a follow-up run asks the model too: the same scripted conversation answers it.
  const times = options.slack === true ? 2 : 1;
  const server = await startDeepSeekServer(
    Array.from({ length: times }, () => conversation.responses).flat(),
    Array.from({ length: times }, () => conversation.judgeResponses).flat(),
  );
  try {
    return await runLocalTrigger(
      {
        ...options,
        settings: {
          DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
          DIAGNOSIS_MODEL_API_KEY: 'scripted-demo-no-key',
          DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
          SEMANTIC_GUARD: 'enforce',
          // NOTE: the judge too, whatever the user's environment or .env names for it; its verdicts are hand-written,
          // and the report names the judge so (render/scripted-judge.ts).
          SEMANTIC_GUARD_MODEL_PROFILE: 'deepseek',
          SEMANTIC_GUARD_MODEL_BASE_URL: server.baseURL,
          SEMANTIC_GUARD_MODEL_API_KEY: 'scripted-demo-no-key',
          SEMANTIC_GUARD_MODEL_ID: SCRIPTED_JUDGE_MODEL_ID,
        },
        banner:
          "SCRIPTED model: a loopback server answers with the hand-written alarm conversation (examples/demo/e1001-alarm-scripted-conversation.json): the agent's rounds and the judge's verdicts; everything else is real.",
      },
      io,
    );
  } finally {
    await server.close();
  }
}
