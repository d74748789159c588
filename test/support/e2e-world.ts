import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createMysqlPool } from '@diagnosis/core/adapters';
import { parseWorkflowSettings } from '@diagnosis/core/config';
import { createLocalDiagnosisWorkflow, loadExampleMysql } from '@diagnosis/devkit';
import { inject } from 'vitest';
import { createCancelRunHandler } from '../../functions/api/cancel-handler.ts';
import { createStartDiagnosisHandler } from '../../functions/api/start-handler.ts';
import { createTableStore } from '../../functions/diagnose/table-store.ts';
import { createObservability } from '../../functions/lambda/observability.ts';
import { handlerFileOf, LAMBDA_FUNCTIONS, type LambdaFunctionName } from '../../scripts/lambda-functions.ts';
import { startDeepSeekServer } from './deepseek-server.ts';
import { createTestTable, localDynamoClient } from './dynamodb.ts';
import { captureFunctionLogs } from './function-logs.ts';
import { MYSQL_TEST_URL, mariadbAvailable, randomSuffix } from './mariadb.ts';

export const E2E_MODEL_KEY = 'sk-e2e-0123456789abcdef';
/**
 * The time kept after a run's deadline to flush its audit and complete it: the product default. NOTE: it is real
 * time against DynamoDB Local on a busy machine (a flush plus completeRun took up to 400 ms under CPU load); a
 * smaller reserve turns the deadline tests into latency tests, failed by middy's early timeout. A test that wants a
 * run of N ms gives the handler `lambdaContext(E2E_FLUSH_RESERVE_MS + N)`.
 */
export const E2E_FLUSH_RESERVE_MS = 3_000;

type Handler = (event: unknown, context: unknown) => Promise<unknown>;

/**
 * A function's handler: its source, or — with `E2E_BUILT_FUNCTIONS=<folder>` (e.g. `.data/build/functions` after
 * `npm run build:functions`) — the built bundle that is deployed, so the same tests run against the artifacts.
 */
async function loadHandler(name: LambdaFunctionName): Promise<Handler> {
  const built = process.env.E2E_BUILT_FUNCTIONS;
  const path =
    built === undefined || built === ''
      ? `../../${LAMBDA_FUNCTIONS[name]}`
      : pathToFileURL(resolve(built, name, handlerFileOf(name))).href;
  return ((await import(path)) as { handler: Handler }).handler;
}

/**
 * The whole product on this machine: the real handlers (imported after the environment is set, as a cold start
 * would), DynamoDB Local, a loopback DeepSeek-format model server, the local adapters on `examples/`, and MariaDB
 * with the example seed when one is reachable.
 */
export async function startE2eWorld(
  environment: Record<string, string> = {},
  options: {
    /** Scales the local workflow's retry waits (default 0.01: a 30 s backoff takes 0.3 s). */
    workflowDelayScale?: number;
  } = {},
) {
  const server = await startDeepSeekServer();
  const dynamo = localDynamoClient();
  const table = await createTestTable(dynamo);
  const mysqlAvailable = await mariadbAvailable();
  const database = `diag_e2e_${randomSuffix()}`;
  let mysqlUrl: string | undefined;
  if (mysqlAvailable) {
    const admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    mysqlUrl = MYSQL_TEST_URL.replace(/\/[^/]*$/, `/${database}`);
    await loadExampleMysql(mysqlUrl);
  }
  const settings: Record<string, string> = {
    DIAGNOSIS_TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: inject('dynamodbEndpoint'),
    DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
    DIAGNOSIS_MODEL_API_KEY: E2E_MODEL_KEY,
    FLUSH_RESERVE_MS: String(E2E_FLUSH_RESERVE_MS),
    DIAGNOSIS_CANCEL_POLL_MS: '100',
    // Powertools' logger and metrics then write through the global console, where the world keeps every record
    // (`logs`) for the test that reads it, and the test run's output stays free of them.
    POWERTOOLS_DEV: 'true',
    POWERTOOLS_METRICS_DISABLED: 'false',
    DIAGNOSIS_FINAL_ROUND_RESERVE_MS: '300',
    // NOTE: these tests script the agent's rounds only; the SemanticGuard (enforce in a deployment) has its own e2e
    // test (semantic-guard.test.ts), which turns it on and scripts the judge's answers too.
    SEMANTIC_GUARD: 'off',
    ...(mysqlUrl === undefined ? {} : { MYSQL_URL: mysqlUrl, MYSQL_STATEMENT_TIMEOUT_MS: '2000' }),
    ...environment,
  };
  // NOTE: restored at cleanup, so no setting (a tenant policy, say) outlives this world in a reused worker.
  const previous = Object.fromEntries(Object.keys(settings).map((key) => [key, process.env[key]]));
  Object.assign(process.env, settings);

  const diagnose = await loadHandler('Diagnose');
  const getRun = await loadHandler('GetRun');
  const getRunAudit = await loadHandler('GetRunAudit');
  const getRunReasoning = await loadHandler('GetRunReasoning');
  const getRunReveal = await loadHandler('GetRunReveal');
  // NOTE: the deployed StartDiagnosis and CancelRun need a Step Functions workflow (DIAGNOSIS_WORKFLOW_ARN); here
  // their handlers are composed as their entries compose them, with the devkit's local DiagnosisWorkflow instead,
  // which runs the deployed definition against this Diagnose handler and closes failed runs as the deployed rule does.
  const workflowSettings = parseWorkflowSettings(process.env);
  const workflowStore = createTableStore(workflowSettings);
  /** What the local workflow's Diagnose invocations answered: refusals of a busy enterprise are counted. */
  const invocations = { tenantBusy: 0 };
  const workflow = createLocalDiagnosisWorkflow({
    invoke: (payload, context) =>
      diagnose(payload, context).catch((error: unknown) => {
        if ((error as Error)?.name === 'DiagnosisTenantBusyError') invocations.tenantBusy += 1;
        throw error;
      }),
    store: workflowStore,
    logger: createObservability('OnWorkflowStopped').logger,
    delayScale: options.workflowDelayScale ?? 0.01,
  });
  const policy = workflowSettings.TENANT_ACCESS ?? null;
  const startDiagnosis = createStartDiagnosisHandler(
    { store: workflowStore, workflow },
    { ...createObservability('StartDiagnosis'), policy },
  ) as Handler;
  const cancelRun = createCancelRunHandler(
    { store: workflowStore, workflow },
    { ...createObservability('CancelRun'), policy },
  ) as Handler;
  const onWorkflowStopped = await loadHandler('OnWorkflowStopped');
  const runFeedback = await loadHandler('RunFeedback');
  const documents = DynamoDBDocumentClient.from(dynamo);
  // NOTE: from here to the return nothing awaits, so a world that failed to start leaves the console as it was.
  const functionLogs = captureFunctionLogs();

  return {
    server,
    /** Every Powertools log line and EMF record the functions printed since the world started. */
    logs: functionLogs.lines,
    mysqlAvailable,
    handlers: {
      diagnose,
      getRun,
      getRunAudit,
      getRunReasoning,
      getRunReveal,
      startDiagnosis,
      cancelRun,
      onWorkflowStopped,
      runFeedback,
    },
    /** The local DiagnosisWorkflow behind startDiagnosis (`idle()` waits for every execution it started). */
    workflow,
    invocations,
    tableName: table.tableName,
    /** Every item in the table. */
    async items(): Promise<Record<string, unknown>[]> {
      const items: Record<string, unknown>[] = [];
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new ScanCommand({
            TableName: table.tableName,
            ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
          }),
        );
        items.push(...(page.Items ?? []));
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      return items;
    },
    async cleanup() {
      // NOTE: a run's store status turns final before its Diagnose invocation returns and prints the run's metrics:
      // a test that polled the store can end first, and the record would then reach the test run's output.
      await workflow.idle();
      functionLogs.restore();
      for (const [key, value] of Object.entries(previous)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
      await server.close();
      await table.drop();
      dynamo.destroy();
      if (mysqlAvailable) {
        const admin = createMysqlPool({ url: MYSQL_TEST_URL, connectionLimit: 1 });
        await admin.query(`DROP DATABASE IF EXISTS ${database}`);
        await admin.end();
      }
    },
  };
}
