/**
 * `@diagnosis/devkit`: the engines that local runs (the `diagnosis` command) and the tests share, never deployed —
 * AWS's DynamoDB Local from npm, the loopback DeepSeek-format server that answers from a script (hand-written
 * conversations, never recordings of a live model), the local interpreter of our Step Functions definitions, and the
 * example world's MySQL loader.
 */
export {
  type DynamoDbLocal,
  dynamoDbLocalJarDir,
  startDetachedDynamoDbLocal,
  startDynamoDbLocal,
} from './dynamodb-local.ts';
export { loadExampleMysql, loadMysqlSeed } from './load-example-mysql.ts';
export {
  evaluateTemplate,
  type LocalExecution,
  type LocalWorkflowOptions,
  runLocalWorkflow,
} from './local-workflow.ts';
export {
  E1001_SCRIPTED_CONVERSATION,
  loadScriptedConversation,
  type ScriptedConversation,
} from './scripted-conversation.ts';
export {
  type DeepSeekResponse,
  isJudgeRequest,
  loadWireFixture,
  startDeepSeekServer,
  type WireReply,
  type WireScript,
  type WireUsage,
  wireText,
  wireToolCalls,
} from './scripted-model-server.ts';
