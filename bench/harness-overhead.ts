/**
 * Harness overhead per model round: 2,000 scripted three-round diagnoses (two tool calls, in-memory adapters and
 * audit) through `runDiagnosis`, against the same script through a bare `generateText` with plain tools.
 */
import { createRunContext, type EvidenceAdapter, runDiagnosis } from '@diagnosis/core';
import { generateText, isStepCount, jsonSchema, tool } from 'ai';
import { createFakeEvidence } from '../test/support/fake-evidence.ts';
import { createMemoryAudit } from '../test/support/memory-audit.ts';
import { envelope, KNOWLEDGE_INPUT, LOGS_INPUT, supportedDraft } from '../test/support/run-fixtures.ts';
import { scriptedModel, textRound, toolRound } from '../test/support/scripted-model.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 2_000);
const ROUNDS = 3;

function script() {
  return [
    toolRound([{ id: 'call-1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
    toolRound([
      {
        id: 'call-2',
        name: 'query_logs',
        input: envelope(LOGS_INPUT, { tool_call_id: 'call-1', evaluation: 'GAINED' }),
      },
    ]),
    textRound(JSON.stringify(supportedDraft(['call-1', 'call-2']))),
  ];
}

async function harnessRun(index: number): Promise<void> {
  const { evidence } = createFakeEvidence();
  const audit = createMemoryAudit();
  const run = createRunContext({
    runId: `run-${index}`,
    sessionId: 's',
    enterpriseId: 'E1001',
    deadlineAt: Date.now() + 60_000,
  });
  const result = await runDiagnosis(
    { run, query: 'E1001 订单失败' },
    { model: scriptedModel(script()), evidence, audit: audit.hook },
  );
  if (result.draft === null || result.progress.modelCalls !== ROUNDS) throw new Error('harness run did not complete');
}

async function bareRun(): Promise<void> {
  const { evidence } = createFakeEvidence();
  const schema = jsonSchema<{ input: unknown }>({ type: 'object' });
  const call = (name: 'lookup_knowledge' | 'query_logs' | 'query_mysql') => {
    const adapter = evidence[name] as EvidenceAdapter<unknown, unknown>;
    return tool({
      inputSchema: schema,
      execute: async ({ input }, { toolCallId, abortSignal }): Promise<unknown> =>
        adapter.execute({
          runId: 'r',
          sessionId: 's',
          enterpriseId: 'E1001',
          toolCallId,
          toolName: name,
          input,
          signal: abortSignal ?? new AbortController().signal,
        }),
    });
  };
  const result = await generateText({
    model: scriptedModel(script()),
    prompt: 'E1001 订单失败',
    tools: {
      lookup_knowledge: call('lookup_knowledge'),
      query_logs: call('query_logs'),
      query_mysql: call('query_mysql'),
    },
    maxRetries: 0,
    stopWhen: isStepCount(8),
  });
  if (result.steps.length !== ROUNDS) throw new Error('bare run did not complete');
}

function summarize(label: string, samples: number[]): number {
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)] ?? 0;
  const p95 = samples[Math.floor(samples.length * 0.95)] ?? 0;
  console.log(`${label.padEnd(22)} median ${median.toFixed(1)} µs/round   p95 ${p95.toFixed(1)} µs/round`);
  return median;
}

async function timed(body: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await body();
  return Number(process.hrtime.bigint() - start) / 1_000 / ROUNDS;
}

export async function benchHarnessOverhead(): Promise<void> {
  console.log(`\n## harness overhead (${RUNS} three-round diagnoses, two tool calls each)`);
  for (let index = 0; index < 200; index += 1) {
    await bareRun();
    await harnessRun(index);
  }
  // NOTE: interleaved, so garbage collection and machine noise fall on both sides alike.
  const bare: number[] = [];
  const harness: number[] = [];
  for (let index = 0; index < RUNS; index += 1) {
    bare.push(await timed(bareRun));
    harness.push(await timed(() => harnessRun(index)));
  }
  const overhead = summarize('runDiagnosis', harness) - summarize('bare generateText', bare);
  console.log(
    `harness overhead       ${overhead.toFixed(1)} µs/round   (target ≤ 300 µs/round: ${overhead <= 300 ? 'met' : 'MISSED'})`,
  );
  console.log(`peak RSS               ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
}

if (import.meta.url === `file://${process.argv[1]}`) await benchHarnessOverhead();
