/**
 * `npm run demo`: the E1001 incident end to end with no key. A loopback OpenAI-compatible server replays a scripted,
 * hand-written conversation in DeepSeek's wire format (examples/demo/e1001-conversation.json: the agent's rounds and
 * the SemanticGuard judge's answer) through the real provider, the real handler, DynamoDB Local and the local
 * adapters. The SemanticGuard runs in `enforce` mode, as in a deployment. `--json` prints the result object only.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type DeepSeekResponse, startDeepSeekServer } from './replay-model-server.ts';
import { runLocalDiagnosis } from './run-local-diagnosis.ts';

const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
const recordingPath = new URL('../examples/demo/e1001-conversation.json', import.meta.url);
const recording = JSON.parse(readFileSync(recordingPath, 'utf8')) as {
  enterpriseId: string;
  query: string;
  responses: DeepSeekResponse[];
  judgeResponses: DeepSeekResponse[];
};
const server = await startDeepSeekServer([...recording.responses], [...recording.judgeResponses]);
process.env.DIAGNOSIS_MODEL_BASE_URL = server.baseURL;
process.env.DIAGNOSIS_MODEL_API_KEY = 'demo-replay-no-key';
process.env.DIAGNOSIS_MODEL_ID = 'deepseek-v4-flash';
// NOTE: the deployed default, so the demo shows what a deployment publishes; the judge's answer is scripted too.
process.env.SEMANTIC_GUARD = 'enforce';

const code = await runLocalDiagnosis({
  query: recording.query,
  enterpriseId: recording.enterpriseId,
  sessionId: 'demo',
  continueSession: false,
  timeoutSeconds: 120,
  json: values.json,
  banner: [
    "DEMO — the model is SCRIPTED: a loopback server plays back a hand-written conversation in DeepSeek's wire format",
    "(examples/demo/e1001-conversation.json), one response per request: the agent's rounds, then the SemanticGuard",
    "judge's verdicts (SEMANTIC_GUARD=enforce, as deployed). Everything else is real: the provider, the Diagnose",
    'handler, the harness, both guards, DynamoDB Local and the local adapters on the example world.',
    `question (${recording.enterpriseId}): ${recording.query}`,
    '',
  ].join('\n'),
});
if (process.env.DEMO_DUMP_JUDGE_REQUEST) {
  process.stderr.write(`${JSON.stringify(server.judgeRequests[0] ?? null)}\n`);
}
await server.close();
process.exit(code);
