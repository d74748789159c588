/**
 * `npm run demo`: the E1001 incident end to end with no key. A loopback OpenAI-compatible server replays a scripted (hand-written)
 * DeepSeek conversation (examples/demo/e1001-conversation.json) through the real provider, the real handler,
 * DynamoDB Local and the local adapters. `--json` prints the result object only.
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
};
const server = await startDeepSeekServer([...recording.responses]);
process.env.DIAGNOSIS_MODEL_BASE_URL = server.baseURL;
process.env.DIAGNOSIS_MODEL_API_KEY = 'demo-replay-no-key';
process.env.DIAGNOSIS_MODEL_ID = 'deepseek-v4-flash';

const code = await runLocalDiagnosis({
  query: recording.query,
  enterpriseId: recording.enterpriseId,
  sessionId: 'demo',
  continueSession: false,
  timeoutSeconds: 120,
  json: values.json,
  banner: [
    'DEMO — the model is a REPLAY: a loopback server plays back a scripted (hand-written) conversation in the DeepSeek wire format',
    '(examples/demo/e1001-conversation.json), one response per request. Everything else is real: the provider, the',
    'Diagnose handler, the harness, DynamoDB Local and the local adapters on the example world.',
    `question (${recording.enterpriseId}): ${recording.query}`,
    '',
  ].join('\n'),
});
await server.close();
process.exit(code);
