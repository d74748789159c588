/**
 * How a run's input grows with its tool calls, measured on the request bodies a run really sends: the
 * Lambda's own composition root (`buildDiagnosisDependencies`: the DeepSeek profile's provider and Draft middleware)
 * against the scripted DeepSeek server on loopback, and evidence adapters that answer every `query_logs` with 20
 * synthetic log lines of ~400 characters (an 8 KB observation; `--small` gives ~1 KB ones). The scripted model calls
 * `query_logs` N times (each call judging the one before, `GAINED` or, with `--no-gain`, alternately `NO_GAIN`)
 * until the tool budget (N) stops collection, then writes the Draft in the forced final round. Every body is counted
 * with DeepSeek-V3's tokenizer, its prompt-cache hits estimated by DeepSeek's prefix rule
 * (packages/devkit/src/request-tokens.ts); the output is the answers the server really sent. Prints, per run: rounds,
 * input tokens, estimated cache hits, output tokens, the last round's hits against the previous round's whole prompt,
 * and the cost at the DeepSeek profile's list price. A run that measured no input or no output fails the bench.
 *
 *   node bench/run-growth.ts [--small] [--no-gain] [--calls 6,12]
 */
import { type AdapterResult, DEVELOPMENT_MASKING_SECRET, type EvidenceAdapters, runDiagnosis } from '@diagnosis/core';
import { modelProfile, parseDiagnosisSettings } from '@diagnosis/core/config';
import {
  loadDeepSeekTokenizer,
  measureConversation,
  startDeepSeekServer,
  type TokenCounter,
  wireText,
  wireToolCalls,
} from '@diagnosis/devkit';
import { buildDiagnosisDependencies } from '../functions/diagnose/dependencies.ts';
import { createFakeEvidence } from '../test/support/fake-evidence.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft, testRun } from '../test/support/run-fixtures.ts';

const LINES = 20;

/** 20 log lines, all different, of ~400 (or ~40) characters each: what a noisy service's ERROR lines look like. */
function logsResult(call: number, small: boolean): AdapterResult<unknown> {
  const lines = Array.from({ length: LINES }, (_, index) => {
    const base = `call payment-gateway failed: HikariPool-1 connection is not available, request timed out after 30000ms (order O-${call}${String(index).padStart(3, '0')})`;
    const tail = ` at com.example.order.PaymentClient.charge(PaymentClient.java:${100 + index}) at com.example.order.CheckoutService.submit(CheckoutService.java:${200 + call}) caused by java.sql.SQLTransientConnectionException: pool exhausted, active=${50 + index} idle=0 waiting=${index * 3 + call}`;
    return {
      timestamp: `2026-11-30T14:${String(call).padStart(2, '0')}:${String(index).padStart(2, '0')}.000+08:00`,
      level: 'ERROR',
      service: 'order-service',
      message: small ? base.slice(0, 40) : `${base}${tail}`.slice(0, 400),
      trace_id: `trace-${call}-${index}`,
    };
  });
  return { status: 'OK', data: { matched: LINES, lines } };
}

async function measureRun(counter: TokenCounter, calls: number, small: boolean, noGain: boolean) {
  const ids = Array.from({ length: calls }, (_, index) => `call_${String(index + 1).padStart(2, '0')}_growth`);
  const evaluation = (index: number) => (noGain && index % 2 === 0 ? 'NO_GAIN' : 'GAINED');
  const script = [
    ...ids.map((id, index) =>
      wireToolCalls([
        {
          id,
          name: 'query_logs',
          arguments: envelope(
            { ...LOGS_INPUT, keyword: `timeout-${index + 1}` },
            index === 0 ? undefined : { tool_call_id: ids[index - 1] ?? '', evaluation: evaluation(index) },
          ),
        },
      ]),
    ),
    // NOTE: a Draft statement cites at most 6 calls: the last ones judged GAINED.
    wireText(draftAnswer(supportedDraft(ids.filter((_, index) => evaluation(index + 1) === 'GAINED').slice(-6)))),
  ];
  const server = await startDeepSeekServer(script);
  try {
    const settings = parseDiagnosisSettings({
      DIAGNOSIS_TABLE_NAME: 'run-growth-bench',
      DIAGNOSIS_MODEL_PROFILE: 'deepseek',
      DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
      DIAGNOSIS_MODEL_API_KEY: 'scripted-bench-no-key',
      SEMANTIC_GUARD: 'off',
      // NOTE: a table without a local endpoint is a deployed one, which refuses to run without its own key.
      MASKING_SECRET: DEVELOPMENT_MASKING_SECRET,
    });
    let call = 0;
    const evidence: EvidenceAdapters = createFakeEvidence({
      query_logs: () => {
        call += 1;
        return logsResult(call, small);
      },
    }).evidence;
    const deps = await buildDiagnosisDependencies(settings, undefined, evidence);
    const result = await runDiagnosis(
      {
        run: testRun({
          now: Date.now,
          deadlineAt: Date.now() + 600_000,
          limits: { maxToolCalls: calls, maxModelCalls: calls + 2, maxTotalTokens: 1_000_000, noGainStopStreak: 2 },
        }),
        query: 'E1001 的订单从 14:05 开始失败，为什么？',
      },
      { model: deps.model, evidence },
    );
    const measured = measureConversation(counter, server.requests, server.responses);
    if (process.env.RUN_GROWTH_ROUNDS === '1') {
      for (const request of measured.requests)
        console.log(`  round prompt ${request.prompt} cached ${request.cachedEstimate}`);
    }
    const last = measured.requests.at(-1);
    const previous = measured.requests.at(-2);
    const run = {
      calls,
      stopReason: result.stopReason,
      draft: result.draft !== null,
      rounds: measured.requests.length,
      input: measured.prompt,
      cached: measured.cachedEstimate,
      output: measured.completion,
      lastCached: last?.cachedEstimate ?? 0,
      previousPrompt: previous?.prompt ?? 0,
      lastPrompt: last?.prompt ?? 0,
    };
    if (run.input === 0 || run.output === 0)
      throw new Error(`run-growth measured nothing: input ${run.input}, output ${run.output}`);
    return run;
  } finally {
    await server.close();
  }
}

export async function benchRunGrowth(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const small = argv.includes('--small');
  const noGain = argv.includes('--no-gain');
  const callsArg = argv[argv.indexOf('--calls') + 1];
  const counts = argv.includes('--calls') && callsArg !== undefined ? callsArg.split(',').map(Number) : [6, 12];
  const price = modelProfile('deepseek').price;
  console.log(
    `\n## input growth with tool calls (${small ? '~1 KB' : '8 KB'} observations, ${noGain ? 'every other call judged NO_GAIN' : 'every call judged GAINED'}; DeepSeek-V3 tokenizer on the bodies sent)`,
  );
  const counter = await loadDeepSeekTokenizer();
  console.log(
    'calls  stop               rounds   input  cached (est.)  output  last round: prompt / cached / previous prompt   cost',
  );
  for (const calls of counts) {
    const run = await measureRun(counter, calls, small, noGain);
    const cost =
      price === null
        ? 0
        : ((run.input - run.cached) * price.input + run.cached * price.cachedInput + run.output * price.output) / 1e6;
    console.log(
      `${String(calls).padStart(5)}  ${String(run.stopReason).padEnd(17)}  ${String(run.rounds).padStart(6)}  ${String(run.input).padStart(6)}  ${String(run.cached).padStart(13)}  ${String(run.output).padStart(6)}  ${String(run.lastPrompt).padStart(10)} / ${String(run.lastCached).padStart(6)} / ${String(run.previousPrompt).padStart(6)}${run.lastCached === run.previousPrompt ? ' (prefix-stable)' : ''}   $${cost.toFixed(5)}${run.draft ? '' : ' (no Draft)'}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchRunGrowth();
