/**
 * `@diagnosis/devkit`: the engines that local runs (the `diagnosis` command) and the tests share, never deployed —
 * AWS's DynamoDB Local from npm, the loopback DeepSeek-format server that answers from a script (hand-written
 * conversations, never recordings of a live model), the local interpreter of our Step Functions definitions, the
 * DiagnosisWorkflow's local stand-in built on it, an SQS queue's and the table stream's stand-ins (the Slack app's
 * work and cards), the example world's MySQL loader, and DeepSeek's tokenizer for
 * measured token counts (loaded only when asked for).
 */
export {
  type DynamoDbLocal,
  dynamoDbLocalJarDir,
  startDetachedDynamoDbLocal,
  startDynamoDbLocal,
} from './dynamodb-local.ts';
export { lambdaContext } from './lambda-context.ts';
export { loadExampleMysql, loadMysqlSeed } from './load-example-mysql.ts';
export {
  createLocalDiagnosisWorkflow,
  type ExecutionStatusChangeEvent,
  LOCAL_WORKFLOW_ARN,
  type LocalDiagnosisWorkflow,
  type LocalDiagnosisWorkflowOptions,
} from './local-diagnosis-workflow.ts';
export { createLocalQueue, type LocalQueue, LocalQueueFullError, type LocalQueueOptions } from './local-queue.ts';
export { createLocalRunStream, type LocalRunStream, type LocalRunStreamOptions } from './local-run-stream.ts';
export {
  evaluateTemplate,
  type LocalExecution,
  type LocalWorkflowOptions,
  runLocalWorkflow,
} from './local-workflow.ts';
export {
  BLOCK_KIT_LIMITS,
  blockKitRefusal,
  type LoopbackSlack,
  type LoopbackSlackMessage,
  type LoopbackSlackOptions,
  type SlackCall,
  type SlackFault,
  startLoopbackSlack,
} from './loopback-slack.ts';
export {
  MAX_SEED_STATEMENTS,
  parseMysqlSeed,
  SEED_STATEMENTS,
  type SeedParse,
  SeedRefusedError,
} from './mysql-seed.ts';
export {
  type ConversationTokens,
  loadDeepSeekTokenizer,
  type MeasuredUsage,
  measureConversation,
  measureRunTokens,
  type RequestPart,
  type RequestTokens,
  requestSegments,
  responseTexts,
  type TokenCounter,
} from './request-tokens.ts';
export {
  E1001_ALARM_SCRIPTED_CONVERSATION,
  E1001_SCRIPTED_CONVERSATION,
  loadScriptedConversation,
  type ScriptedConversation,
} from './scripted-conversation.ts';
export {
  type DeepSeekResponse,
  isJudgeRequest,
  loadWireFixture,
  scriptedRound,
  startDeepSeekServer,
  type WireReply,
  type WireScript,
  type WireUsage,
  wireText,
  wireToolCalls,
} from './scripted-model-server.ts';
