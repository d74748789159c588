/**
 * Issue 19, defect 5: locally, with 8 runs of one enterprise started at once against TENANT_MAX_CONCURRENT_RUNS=4,
 * the in-process workflow stand-in invoked Diagnose once per run and dropped every error, so the runs refused for
 * the busy enterprise stayed QUEUED forever. Through the real StartDiagnosis handler (API Gateway v2 events), the
 * devkit's local DiagnosisWorkflow (the deployed definition on the local interpreter, its retry waits scaled down),
 * the real Diagnose handler, DynamoDB Local and a scripted model: every run ends, none is dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireText } from '../../support/deepseek-server.ts';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
const conversation = e1001ScriptedConversation();
beforeAll(async () => {
  world = await startE2eWorld({ TENANT_MAX_CONCURRENT_RUNS: '4' });
});
afterAll(async () => {
  await world?.cleanup();
});

type Answer = { status: number; body: Record<string, unknown> };
const call = async (handler: 'startDiagnosis' | 'getRun', event: unknown): Promise<Answer> => {
  const response = (await world.handlers[handler](event, lambdaContext(30_000))) as {
    statusCode: number;
    body: string;
  };
  return { status: response.statusCode, body: JSON.parse(response.body) };
};
/** Polls `check` until it holds; fails the test if it never does (within about 20 s). */
const until = async (check: () => boolean) => {
  for (let tries = 0; tries < 800 && !check(); tries += 1) await new Promise((resolve) => setTimeout(resolve, 25));
  if (!check()) throw new Error('the awaited state never came');
};

describe('the local DiagnosisWorkflow with one enterprise over its cap', () => {
  it('ends all 8 runs started at once against a cap of 4: the refused ones wait and retry, none stays QUEUED', async () => {
    // The first model round of each run waits at a gate, so the first 4 runs hold all 4 lease slots while the other
    // 4 are refused; once they have been, the gate opens and every run answers with a Draft.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    let entered = 0;
    const round = async () => {
      entered += 1;
      await gate;
      return wireText(JSON.stringify(noConclusionDraft()));
    };
    world.server.script.push(...Array.from({ length: 8 }, () => round));
    const runIds = Array.from({ length: 8 }, (_, index) => `cap-${Date.now().toString(36)}-${index}`);

    const answers = await Promise.all(
      runIds.map((runId) =>
        call(
          'startDiagnosis',
          httpEvent({
            body: JSON.stringify({ runId, sessionId: 's', enterpriseId: 'E1001', query: conversation.query }),
          }),
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(202));
    await until(() => entered === 4 && world.invocations.tenantBusy >= 4);
    expect(entered).toBe(4);
    open();
    await world.workflow.idle();

    const runs = await Promise.all(
      runIds.map((runId) => call('getRun', httpEvent({ method: 'GET', pathParameters: { runId } }))),
    );
    expect(runs.map((run) => run.body.status)).toEqual(Array(8).fill('PUBLISHED'));
    expect(entered).toBe(8);
  });
});
