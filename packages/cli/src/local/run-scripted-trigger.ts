/**
 * An alarm or webhook event through the real Trigger functions with the demo's scripted model (`trigger
 * --scripted-model`, `demo --alarm`): a loopback server answers every model request from the hand-written
 * conversation of examples/demo/, in DeepSeek's wire format; everything else is real.
 */
import type { CliIo } from '../command-line.ts';
import { type LocalTriggerOptions, runLocalTrigger } from './run-local-trigger.ts';

/** The trigger with the demo's scripted model on a loopback server (the SemanticGuard in enforce, as deployed). */
export async function runScriptedTrigger(
  options: Omit<LocalTriggerOptions, 'settings' | 'banner'>,
  io: CliIo,
): Promise<number> {
  const { loadScriptedConversation, startDeepSeekServer } = await import('@diagnosis/devkit');
  const conversation = loadScriptedConversation();
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
        },
        banner:
          "SCRIPTED model: a loopback server answers with the demo's hand-written conversation (examples/demo/e1001-scripted-conversation.json); everything else is real.",
      },
      io,
    );
  } finally {
    await server.close();
  }
}
