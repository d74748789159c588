/**
 * The demo's scripted model for a server that runs many diagnoses: the loopback DeepSeek-format server answers each
 * request with the round of the demo's hand-written E1001 conversation that the request's own history asks for (the
 * round after the one whose call its newest tool result answers: `scriptedRound`), and each judge request with the demo's judge answer. So every run gets the same
 * scripted conversation, however many run and in whatever order. NOTE: scripted, never a model: a run on another
 * incident gets E1001's tool calls, which its own window or enterprise may refuse (the run then ends FALLBACK).
 */
import {
  type DeepSeekResponse,
  loadScriptedConversation,
  scriptedRound,
  startDeepSeekServer,
  type WireScript,
} from '@diagnosis/devkit';
import { SCRIPTED_JUDGE_MODEL_ID } from '../render/scripted-judge.ts';

export async function startScriptedModel() {
  const conversation = loadScriptedConversation();
  const agent: WireScript = [];
  const judge: WireScript = [];
  const rounds = conversation.responses as DeepSeekResponse[];
  const judgeAnswers = conversation.judgeResponses as DeepSeekResponse[];
  // NOTE: each entry puts itself back: the server's queues never run dry.
  const agentEntry = (request: Record<string, unknown>) => {
    agent.push(agentEntry);
    const round = rounds[Math.min(scriptedRound(request, rounds), rounds.length - 1)];
    return round ?? { status: 599, body: { error: { message: 'no scripted round' } } };
  };
  const judgeEntry = () => {
    judge.push(judgeEntry);
    return judgeAnswers[0] ?? { status: 599, body: { error: { message: 'no scripted judge answer' } } };
  };
  agent.push(agentEntry);
  judge.push(judgeEntry);
  const server = await startDeepSeekServer(agent, judge);
  return {
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
      "SCRIPTED model: a loopback server answers every run with the demo's hand-written E1001 conversation (examples/demo/e1001-scripted-conversation.json); everything else is real.",
    close: () => server.close(),
  };
}
