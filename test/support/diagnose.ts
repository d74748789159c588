import { type AuditHook, type RunContextInit, runDiagnosis } from '@diagnosis/core';
import { createFakeEvidence, type FakeHandler } from './fake-evidence.ts';
import { createMemoryAudit } from './memory-audit.ts';
import { testRun } from './run-fixtures.ts';
import { type ScriptStep, scriptedModel } from './scripted-model.ts';

export interface DiagnoseOptions {
  query?: string;
  previousTurn?: unknown;
  run?: Partial<RunContextInit>;
  handlers?: Parameters<typeof createFakeEvidence>[0];
  /** The catalog `query_mysql` offers (default: the fake's own). */
  catalog?: Parameters<typeof createFakeEvidence>[1];
  audit?: AuditHook;
}

/**
 * Arranges one scripted diagnosis: the scripted model, recording adapters and an in-memory audit. `outcome` settles
 * with the result or the thrown error, so tests assert on both and on everything recorded.
 */
export async function diagnose(script: ScriptStep[], options: DiagnoseOptions = {}) {
  const model = scriptedModel(script);
  const fake = createFakeEvidence(options.handlers, options.catalog);
  const memory = createMemoryAudit();
  const run = testRun(options.run);
  const outcome = await runDiagnosis(
    {
      run,
      query: options.query ?? 'E1001 的订单从 14:05 开始失败，为什么？',
      previousTurn: options.previousTurn as never,
    },
    { model, evidence: fake.evidence, audit: options.audit ?? memory.hook },
  ).then(
    (result) => ({ ok: true as const, result }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { outcome, model, run, adapterCalls: fake.calls, audit: memory };
}

export type { FakeHandler };
