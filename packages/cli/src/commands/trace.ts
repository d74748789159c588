import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { isRunId } from '@diagnosis/core/ids';
import { CliError, type Command, EXIT, printable, RUN_ID_FORM, usageError } from '../command-line.ts';
import { STORE_SETTINGS } from '../setting-keys.ts';

/**
 * `diagnosis trace <runId>`: one run from the table (the local one by default; any endpoint with DYNAMODB_ENDPOINT
 * and DIAGNOSIS_TABLE_NAME): a timeline on stdout, and a Mermaid sequence diagram and a self-contained HTML page
 * under `.data/traces/`. Reasoning is shown only with `--include-reasoning`.
 */
export const traceCommand: Command = {
  name: 'trace',
  summary: "one run's rounds and tool calls; writes a Mermaid diagram and an HTML page",
  synopsis: '<runId> [--include-reasoning]',
  description: [
    'Reads a run from the table (the local one by default; any table with DYNAMODB_ENDPOINT and DIAGNOSIS_TABLE_NAME)',
    'and prints its timeline: rounds with durations and tokens, tool calls, statuses, codes, the stop reason. Writes',
    '.data/traces/<runId>.mmd (a Mermaid sequence diagram) and .data/traces/<runId>.html (a self-contained page).',
  ],
  arguments: [['<runId>', 'the run, as printed by diagnose, demo and runs']],
  options: [
    { name: 'include-reasoning', type: 'boolean', description: "show the model's raw reasoning (its own partition)" },
  ],
  examples: ['diagnosis trace 01KB3…', 'diagnosis runs --limit 1   # the id of the latest run'],
  exitCodes: [
    [EXIT.OK, 'printed, the diagram and the page written'],
    [EXIT.NOT_FOUND, 'no run with that id in the table'],
    [EXIT.USAGE, 'bad usage: no run id, or not a run id'],
    [EXIT.UNAVAILABLE, 'no DynamoDB (Java 17+ starts DynamoDB Local), or no such table at DYNAMODB_ENDPOINT'],
  ],
  settings: STORE_SETTINGS,
  async run({ values, positionals }, io) {
    const runId = positionals[0];
    if (runId === undefined) throw usageError('no run id: diagnosis trace <runId> (diagnosis runs lists them)');
    if (positionals.length > 1) throw usageError(`one run id only, not also '${printable(positionals[1] ?? '')}'`);
    if (!isRunId(runId)) throw usageError(`'${printable(runId)}' is not a run id (${RUN_ID_FORM})`);
    const { createDynamoRunStore, createDynamoIncidentStore } = await import('@diagnosis/core/store');
    const { renderIncident } = await import('../render/render-incident.ts');
    const { localDataDir } = await import('../local/local-data.ts');
    const { startLocalRuntime } = await import('../local/local-runtime.ts');
    const [{ loadRunTrace }, { renderTimeline }, { renderMermaid }, { renderHtml }] = await Promise.all([
      import('../render/load-run-trace.ts'),
      import('../render/trace-timeline.ts'),
      import('../render/trace-mermaid.ts'),
      import('../render/trace-html.ts'),
    ]);
    const runtime = await startLocalRuntime(io.env, (line) => io.stderr(`${line}\n`));
    try {
      const store = createDynamoRunStore({ client: runtime.client, tableName: runtime.tableName });
      const trace = await loadRunTrace(store, runId, values['include-reasoning'] === true);
      if (trace === null) throw new CliError(EXIT.NOT_FOUND, `no run ${runId} in table ${runtime.tableName}`);
      io.stdout(`${renderTimeline(trace)}\n`);
      const incidentEvents =
        trace.run.trigger === null
          ? []
          : await createDynamoIncidentStore({
              client: runtime.client,
              tableName: runtime.tableName,
            }).listIncidentEvents(runId);
      trace.incidentEvents = incidentEvents;
      if (trace.run.trigger !== null) io.stdout(`\n${renderIncident(trace.run, incidentEvents)}\n`);
      const directory = resolve(localDataDir(io.env), 'traces');
      mkdirSync(directory, { recursive: true });
      const mermaid = resolve(directory, `${runId}.mmd`);
      const html = resolve(directory, `${runId}.html`);
      writeFileSync(mermaid, renderMermaid(trace));
      writeFileSync(html, renderHtml(trace, incidentEvents));
      io.stdout(`\nsequence diagram: ${mermaid}\npage: ${html}\n`);
      if (!hasCjkFont()) {
        io.stderr(
          'note: no CJK font is installed, so a browser on this machine draws the page’s Chinese as boxes (Debian: apt-get install fonts-noto-cjk)\n',
        );
      }
      return EXIT.OK;
    } finally {
      await runtime.stop();
    }
  },
};

/** Whether fontconfig knows a font for Chinese; true where there is no fontconfig to ask (macOS, Windows). */
function hasCjkFont(): boolean {
  try {
    return execFileSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8', timeout: 5_000 }).trim() !== '';
  } catch {
    return true;
  }
}
