import { type Command, EXIT } from '../command-line.ts';
import { SCRIPTED_JUDGE_MODEL_ID } from '../render/scripted-judge.ts';
import { MASKING_SETTINGS, STORE_SETTINGS } from '../setting-keys.ts';

/**
 * `diagnosis demo`: the E1001 incident end to end with no key. A loopback OpenAI-compatible server answers from a
 * scripted, hand-written conversation in DeepSeek's wire format (examples/demo/e1001-scripted-conversation.json: the
 * agent's rounds and the SemanticGuard judge's answer) through the real provider, the real Diagnose function,
 * DynamoDB Local and the local adapters. The SemanticGuard runs in `enforce` mode, as in a deployment.
 */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'the E1001 incident end to end, no key needed (the model is scripted)',
  synopsis: '[--alarm] [--json]',
  description: [
    'Diagnoses the example incident of enterprise E1001 with everything real but the model: a loopback server answers',
    "with a scripted, hand-written conversation in DeepSeek's wire format (examples/demo/e1001-scripted-conversation.json),",
    "one response per request — the agent's five rounds, then the SemanticGuard judge's verdicts (enforce, as deployed).",
  ],
  options: [
    {
      name: 'alarm',
      type: 'boolean',
      description:
        'start it from a CloudWatch alarm instead (examples/triggers/cloudwatch-alarm.json through the Trigger function, answered by examples/demo/e1001-alarm-scripted-conversation.json: its logs end at the alarm); one incident per data folder: again, it attaches to the first run',
    },
    {
      name: 'json',
      type: 'boolean',
      description: 'print only the result object, with the evidence behind each citation',
    },
  ],
  examples: ['npm run demo', 'npm run demo -- --alarm', 'npx diagnosis demo --json | jq .evidence'],
  exitCodes: [
    [EXIT.OK, 'the diagnosis was published; --alarm again on the same data: the alarm attached to its run (said)'],
    [EXIT.FAILED, 'the run FAILED'],
    [EXIT.FALLBACK, 'the run ended with a FALLBACK report'],
    [EXIT.UNAVAILABLE, 'no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT'],
    [EXIT.INTERRUPTED, 'Ctrl-C: the run was cancelled (it ends CANCELLED)'],
  ],
  // NOTE: the model settings are the demo's own (the scripted one); the rest of the environment is read as by diagnose.
  settings: ['MYSQL_URL', 'DIAGNOSIS_TIMEZONE', ...MASKING_SETTINGS, ...STORE_SETTINGS],
  async run({ values }, io) {
    if (values.alarm === true) {
      // The alarm-started variant: the alarm's scripted conversation (its claims fit the clamped window), started by
      // the Trigger function from an alarm.
      const { runScriptedTrigger } = await import('../local/run-scripted-trigger.ts');
      const { REPO_ROOT } = await import('../local/local-data.ts');
      return runScriptedTrigger(
        {
          eventPath: `${REPO_ROOT}/examples/triggers/cloudwatch-alarm.json`,
          stage: 'default',
          timeoutSeconds: 120,
          json: values.json === true,
          // NOTE: the demo's alarm is one incident: a second demo --alarm on the same data attaches to its run.
          newRunHints: [
            '  use a fresh data folder, where this incident is new: DIAGNOSIS_LOCAL_DATA=$(mktemp -d) npm run demo -- --alarm',
            '  or the same alarm as a re-fire now: npx diagnosis trigger examples/triggers/cloudwatch-alarm.json --scripted-model --now',
          ],
        },
        io,
      );
    }
    const { loadScriptedConversation, startDeepSeekServer } = await import('@diagnosis/devkit');
    const { runLocalDiagnosis } = await import('../local/run-local-diagnosis.ts');
    const conversation = loadScriptedConversation();
    const server = await startDeepSeekServer([...conversation.responses], [...conversation.judgeResponses]);
    try {
      return await runLocalDiagnosis(
        {
          query: conversation.query,
          enterpriseId: conversation.enterpriseId,
          sessionId: 'demo',
          continueSession: false,
          timeoutSeconds: 120,
          json: values.json === true,
          // NOTE: over the user's environment: the demo's model is always the scripted one, with the deployed guard.
          settings: {
            DIAGNOSIS_MODEL_PROFILE: 'deepseek',
            DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
            DIAGNOSIS_MODEL_API_KEY: 'scripted-demo-no-key',
            DIAGNOSIS_MODEL_ID: 'deepseek-v4-flash',
            SEMANTIC_GUARD: 'enforce',
            // NOTE: the judge too, whatever the user's environment or .env names for it.
            SEMANTIC_GUARD_MODEL_PROFILE: 'deepseek',
            SEMANTIC_GUARD_MODEL_BASE_URL: server.baseURL,
            SEMANTIC_GUARD_MODEL_API_KEY: 'scripted-demo-no-key',
            // NOTE: the verdicts are hand-written: the report names the judge so (render/scripted-judge.ts).
            SEMANTIC_GUARD_MODEL_ID: SCRIPTED_JUDGE_MODEL_ID,
          },
          banner: [
            "DEMO — the model is SCRIPTED: a loopback server answers with a hand-written conversation in DeepSeek's wire",
            "format (examples/demo/e1001-scripted-conversation.json), one response per request: the agent's rounds, then the",
            "SemanticGuard judge's verdicts (SEMANTIC_GUARD=enforce, as deployed). Everything else is real: the provider,",
            'the Diagnose function, the harness, both guards, DynamoDB Local and the local adapters on the example world.',
            `question (${conversation.enterpriseId}): ${conversation.query}`,
            '',
          ].join('\n'),
        },
        io,
      );
    } finally {
      await server.close();
    }
  },
};
