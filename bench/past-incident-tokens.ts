/**
 * What past incidents add to a diagnosis's tokens (`node bench/past-incident-tokens.ts`), counted with DeepSeek-V3's
 * tokenizer (the devkit's, as the eval's `measured` column): the instructions' line (in every request of the agent;
 * the judge's phrase once per judged run), and the `lookup_knowledge` observation of the E1001 scripted conversation
 * with and without one matching past incident (the run the same conversation published, rated CORRECT with a stated
 * cause) — the real local runbook index of examples/knowledge, the real merge, projection and model form. The
 * observation is re-sent in every later request of the conversation, so its difference counts that many times.
 */
import {
  buildDiagnosisInstructions,
  createPastIncidentKnowledge,
  type KnowledgeInput,
  type PastIncident,
} from '@diagnosis/core';
import { createLocalKnowledgeAdapter, loadKnowledgeDocuments } from '@diagnosis/core/adapters';
import { createMemoryPastIncidentStore } from '@diagnosis/core/store';
import { loadDeepSeekTokenizer } from '@diagnosis/devkit';
import { buildSemanticGuardInstructions } from '../packages/core/src/release/judge/semantic-guard-prompt.ts';
import { projectEvidence } from '../packages/core/src/tools/evidence-projection.ts';
import { toModelObservation } from '../packages/core/src/tools/model-observation.ts';
import { e1001ScriptedConversation } from '../test/support/lambda-events.ts';

const tokenizer = await loadDeepSeekTokenizer();
const count = (text: string) => tokenizer.encode(text).length;
const conversation = e1001ScriptedConversation();
const message = (index: number) =>
  (
    conversation.responses[index] as {
      choices: { message: { content: string; tool_calls?: { function: { arguments: string } }[] } }[];
    }
  ).choices[0]?.message;
const lookup = JSON.parse(message(0)?.tool_calls?.[0]?.function.arguments ?? '{}').input as KnowledgeInput;
const draft = JSON.parse(message(conversation.responses.length - 1)?.content ?? '{}') as { conclusion: string };
const requests = conversation.responses.length;

const instructions = buildDiagnosisInstructions();
const line = instructions.split('\n').find((text) => text.includes('past_incident')) ?? '';
const judgeLine =
  buildSemanticGuardInstructions()
    .split('\n')
    .find((text) => text.includes('past_incident')) ?? '';
const judgePhrase = judgeLine.slice(judgeLine.indexOf('；带 source'));

const runbooks = createLocalKnowledgeAdapter(await loadKnowledgeDocuments('examples/knowledge'));
const store = createMemoryPastIncidentStore();
const remembered: PastIncident = {
  enterpriseId: 'E1001',
  runId: '01KB3PASTINCIDENTE1001RUN',
  occurredAt: '2026-11-02T06:10:00.000Z',
  services: ['order-service', 'payment-gateway'],
  conclusion: draft.conclusion.slice(0, 600),
  rootCause: 'payment-gateway 2.14.0 把 db.pool.max_size 调成了 5，回滚后恢复',
  rating: 'CORRECT',
  ratedAt: '2026-11-02T08:00:00.000Z',
  expiresAt: Date.now() + 86_400_000,
};
await store.remember(remembered);
const withMemory = createPastIncidentKnowledge({ runbooks, incidents: store });
const call = {
  runId: 'bench',
  sessionId: 's',
  enterpriseId: 'E1001',
  toolCallId: 'call_00_Vw3kQz8RbN2mT6yHcJ5pLx1a',
  toolName: 'lookup_knowledge' as const,
  input: lookup,
  signal: new AbortController().signal,
};
const observed = async (adapter: typeof runbooks) => {
  const result = await adapter.execute(call);
  if (result.status !== 'OK') throw new Error('the lookup found nothing');
  const projected = projectEvidence('lookup_knowledge', result.data);
  if (!projected.ok) throw new Error('the projection refused the lookup');
  const observation = {
    tool_call_id: call.toolCallId,
    evidence_status: 'OK' as const,
    data: projected.data,
    requires_evaluation: true as const,
  };
  return { tokens: count(JSON.stringify(toModelObservation(observation))), hits: projected.data };
};
const without = await observed(runbooks);
const withIt = await observed(withMemory);
const lineTokens = count(line);
const observationDelta = withIt.tokens - without.tokens;
console.log(`E1001 scripted conversation: ${requests} agent requests; lookup ${JSON.stringify(lookup)}`);
console.log(`instructions line: ${lineTokens} tokens × ${requests} requests = ${lineTokens * requests}`);
console.log(`judge phrase: ${count(judgePhrase)} tokens × 1 judge request`);
console.log(
  `lookup observation: ${without.tokens} tokens without memory, ${withIt.tokens} with one past incident (${observationDelta >= 0 ? '+' : ''}${observationDelta}), re-sent in ${requests - 1} requests = ${observationDelta * (requests - 1)}`,
);
console.log(
  `hits with memory: ${JSON.stringify((withIt.hits as { hits: { doc_id: string }[] }).hits.map((hit) => hit.doc_id))}`,
);
console.log(
  `per diagnosis: without memory +${lineTokens * requests + count(judgePhrase)} (the instructions only), with one matching memory +${lineTokens * requests + count(judgePhrase) + observationDelta * (requests - 1)}`,
);
