/**
 * Alarm event → run started, on DynamoDB Local (issue 21): the real Trigger handler (middy chain, logger, EMF metrics)
 * on CloudWatch Alarm State Change events shaped like `examples/triggers/cloudwatch-alarm.json`, each a new incident
 * (its own alarm ARN): parse, map, the incident's conditional claim, `startDiagnosis` (the run QUEUED with its trigger
 * and window), the workflow started — here a recorder, so the Step Functions call itself is not in the figure. Then
 * the same for a later event of an open incident (attached, nothing started), and DynamoDB requests per event.
 * Run: `node bench/trigger-latency.ts` (also part of `npm run bench`).
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { parseTriggerSettings } from '@diagnosis/core/config';
import { ensureDiagnosisTable } from '@diagnosis/core/store';
import { lambdaContext, startDynamoDbLocal } from '@diagnosis/devkit';
import { createObservability } from '@diagnosis/functions';
import { createTriggerHandler } from '../functions/triggers/trigger-handler.ts';
import { buildTriggerDeps } from '../functions/triggers/trigger-setup.ts';
import { recordingWorkflow } from '../test/support/recording-workflow.ts';
import { summary } from './latency.ts';

const EVENTS = Number(process.env.BENCH_TRIGGER_EVENTS ?? 200);
/**
 * NOTE: the incidents are spread over 20 enterprises (E2101…E2120, one mapping each), 10 open runs apiece: the runs
 * stay QUEUED here (the workflow is a recorder), and one enterprise would reach its admission bound
 * (TENANT_MAX_OPEN_RUNS, default 20) after 20 events — measured as deployed, with the default bound.
 */
const ENTERPRISES = 20;
const enterpriseOf = (index: number) => `E${2101 + (((index % ENTERPRISES) + ENTERPRISES) % ENTERPRISES)}`;

export async function benchTriggerLatency(): Promise<void> {
  const engine = await startDynamoDbLocal();
  const client = new DynamoDBClient({
    endpoint: engine.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  try {
    const tableName = 'bench-trigger';
    await ensureDiagnosisTable(client, tableName);
    const alarm = JSON.parse(
      readFileSync(new URL('../examples/triggers/cloudwatch-alarm.json', import.meta.url), 'utf8'),
    );
    const settings = parseTriggerSettings({
      DIAGNOSIS_TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: engine.endpoint,
      TRIGGERS: JSON.stringify(
        Array.from({ length: ENTERPRISES }, (_, index) => ({
          source: 'cloudwatch',
          alarmNamePattern: `${enterpriseOf(index)}-*`,
          enterpriseId: enterpriseOf(index),
        })),
      ),
    });
    const { workflow, started: startedRuns } = recordingWorkflow();
    const clock = () => Date.parse('2026-11-30T06:07:00Z');
    // NOTE: the trigger's one DynamoDB client counts every request it sends (the requests per event of the figure).
    const counted = new DynamoDBClient({
      endpoint: engine.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
    });
    const requests: string[] = [];
    counted.middlewareStack.add(
      (next, context) => async (args) => {
        requests.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize' },
    );
    const deps = await buildTriggerDeps(settings, clock, counted, workflow);
    const handler = createTriggerHandler(
      { ...deps, start: { ...deps.start, workflow } },
      createObservability('Trigger', () => undefined),
    );
    const eventOf = (index: number, id = `bench-${index}`) => ({
      ...alarm,
      id,
      resources: [`arn:aws:cloudwatch:cn-north-1:123456789012:alarm:${enterpriseOf(index)}-bench-${index}`],
      detail: { ...alarm.detail, alarmName: `${enterpriseOf(index)}-bench-${index}` },
    });

    // Warm-up: the first invocation pays module and client set-up, as a cold start would.
    await handler(eventOf(-1), lambdaContext(30_000));
    const startLatency: number[] = [];
    requests.splice(0);
    for (let index = 0; index < EVENTS; index += 1) {
      const began = performance.now();
      const answer = await handler(eventOf(index), lambdaContext(30_000));
      startLatency.push(performance.now() - began);
      if (answer.outcome !== 'STARTED') throw new Error(`event ${index} did not start a run: ${answer.outcome}`);
    }
    const startRequests = requests.splice(0);
    const attachLatency: number[] = [];
    for (let index = 0; index < EVENTS; index += 1) {
      const began = performance.now();
      const answer = (await handler(eventOf(index, `bench-again-${index}`), lambdaContext(30_000))) as {
        outcome: string;
      };
      attachLatency.push(performance.now() - began);
      if (answer.outcome !== 'ATTACHED') throw new Error(`event ${index} again was not attached: ${answer.outcome}`);
    }
    console.log('\n## alarm event → run started (issue 21)');
    console.log(`new incident → run QUEUED + workflow started: ${summary(startLatency)}`);
    console.log(`later event of an open incident → attached: ${summary(attachLatency)}`);
    console.log(`runs started: ${startedRuns.length} (of ${EVENTS + 1} new incidents)`);
    const perEvent = (names: string[]) => {
      const counts = new Map<string, number>();
      for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
      return [...counts].map(([name, count]) => `${name} ${(count / EVENTS).toFixed(1)}`).join(', ');
    };
    console.log(
      `DynamoDB requests per new incident: ${(startRequests.length / EVENTS).toFixed(1)} (${perEvent(startRequests)})`,
    );
    console.log(
      `DynamoDB requests per attached event: ${(requests.length / EVENTS).toFixed(1)} (${perEvent(requests)})`,
    );
    counted.destroy();
  } finally {
    client.destroy();
    await engine.stop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchTriggerLatency();
