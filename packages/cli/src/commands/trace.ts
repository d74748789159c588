/**
 * `npm run trace -- <runId> [--include-reasoning]`: one run from the table (the local one by default; any endpoint
 * with DYNAMODB_ENDPOINT and DIAGNOSIS_TABLE_NAME): a timeline on stdout, and a Mermaid sequence diagram and a
 * self-contained HTML page under `.data/traces/`. Reasoning is shown only with `--include-reasoning`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { isRunId } from '@diagnosis/core';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import { localDataDir, startLocalRuntime } from './local-runtime.ts';
import { loadRunTrace, renderHtml, renderMermaid, renderTimeline } from './trace-render.ts';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { 'include-reasoning': { type: 'boolean', default: false } },
  });
  const runId = positionals[0];
  if (runId === undefined || !isRunId(runId)) {
    process.stderr.write('usage: npm run trace -- <runId> [--include-reasoning]\n');
    return 1;
  }
  const runtime = await startLocalRuntime();
  try {
    const store = createDynamoAuditStore({ client: runtime.client, tableName: runtime.tableName });
    const trace = await loadRunTrace(store, runId, values['include-reasoning']);
    if (trace === null) {
      process.stderr.write(`no run ${runId} in table ${runtime.tableName}\n`);
      return 1;
    }
    process.stdout.write(`${renderTimeline(trace)}\n`);
    const directory = resolve(localDataDir(), 'traces');
    mkdirSync(directory, { recursive: true });
    const mermaid = resolve(directory, `${runId}.mmd`);
    const html = resolve(directory, `${runId}.html`);
    writeFileSync(mermaid, renderMermaid(trace));
    writeFileSync(html, renderHtml(trace));
    process.stdout.write(`\nsequence diagram: ${mermaid}\npage: ${html}\n`);
    return 0;
  } finally {
    await runtime.stop();
  }
}

process.exit(await main());
