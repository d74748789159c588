// NOTE: over 300 lines on purpose: the local runner on one shared table, in process (runCommandLine) and in child
// processes for what only a process shows: diagnose, then the trace and the demo of those runs.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHROMIUM, distinctColours, inkShare, isCjkFontName, visitPage } from '../../support/chromium.ts';
import { startInProcess } from '../../support/cli-in-process.ts';
import { startBin } from '../../support/cli-process.ts';
import { startDeepSeekServer, wireText, wireToolCalls } from '../../support/deepseek-server.ts';
import { schemaErrors } from '../../support/json-schemas.ts';
import { e1001ScriptedConversation } from '../../support/lambda-events.ts';
import { draftAnswer, envelope, LOGS_INPUT, supportedDraft } from '../../support/run-fixtures.ts';

if (CHROMIUM === undefined && !process.env.CI) {
  console.warn('\n!!! Chromium not found (apt-get install chromium): the trace page rendering test is SKIPPED !!!\n');
}
const conversation = e1001ScriptedConversation();
// NOTE: every command works on the suite's one DynamoDB Local (its own table), never starting Java itself;
// the engine a data folder starts and shares is tested in local-engine.test.ts.
const endpoint = inject('dynamodbEndpoint');
const tableName = `runner-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
let server: Awaited<ReturnType<typeof startDeepSeekServer>>;
let dataDir: string;

beforeAll(async () => {
  server = await startDeepSeekServer();
  dataDir = mkdtempSync(join(tmpdir(), 'diagnosis-local-'));
});
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The environment of every command here: this file's table and data folder, the loopback model. */
const runnerEnvironment = (environment: Record<string, string>) => ({
  DIAGNOSIS_LOCAL_DATA: dataDir,
  DYNAMODB_ENDPOINT: endpoint,
  DIAGNOSIS_TABLE_NAME: tableName,
  DIAGNOSIS_MODEL_BASE_URL: server.baseURL,
  DIAGNOSIS_MODEL_API_KEY: 'sk-runner-test',
  ...environment,
});

/** The `diagnosis` bin's command in process. */
function start(command: string, args: string[], environment: Record<string, string> = {}) {
  return startInProcess([command, ...args], runnerEnvironment(environment));
}

/** The `diagnosis` bin with a command in a child process, as `npm run <command>` runs it: for its streams and signals. */
function startProcess(command: string, args: string[], environment: Record<string, string> = {}) {
  return startBin([command, ...args], runnerEnvironment(environment));
}

/** Whether a command started an engine of its own for this data folder (it never should: an endpoint is given). */
const engineStarted = () => existsSync(join(dataDir, 'dynamodb', 'engine.json'));

const diagnose = (args: string[], environment?: Record<string, string>) => start('diagnose', args, environment).done;

/** The run id a runner printed on stderr (it prints it before the first model call). */
async function runIdOf(runner: Pick<ReturnType<typeof start>, 'matches'>): Promise<string> {
  return (await runner.matches('stderr', /run ([0-9A-Z]{26}) {2}enterprise/))[1] ?? '';
}

/**
 * Starts the runner against a model that never answers, and returns once the runner's first request arrived. NOTE:
 * its cancel flag is polled every 100 ms, as the e2e world's handlers poll it, instead of the product's 2 s: the
 * cancel tests then wait for the cancel itself, not for a poll interval.
 */
async function runnerWaitingForTheModel<Runner extends ReturnType<typeof start>>(
  startWith: (command: string, args: string[], environment: Record<string, string>) => Runner,
): Promise<Runner> {
  const { promise: reached, resolve: arrived } = Promise.withResolvers<void>();
  server.script.push(() => {
    arrived();
    return new Promise(() => undefined);
  });
  const runner = startWith('diagnose', [conversation.query], { DIAGNOSIS_CANCEL_POLL_MS: '100' });
  await runner.until(reached);
  return runner;
}

describe('diagnosis diagnose (the local runner)', () => {
  let publishedRunId = '';

  it('publishes the E1001 diagnosis with --json, exit 0, and leaves the run in the table, on the given DynamoDB', async () => {
    server.script.push(...structuredClone(conversation.responses));
    server.judgeScript.push(...structuredClone(conversation.judgeResponses));
    const finished = await diagnose([conversation.query, '--enterprise', 'E1001', '--json']);
    expect(finished.code).toBe(0);
    const result = JSON.parse(finished.stdout);
    expect(Object.keys(result).sort()).toEqual([
      'evidence',
      'progress',
      'report',
      'runId',
      'status',
      'stopReason',
      'usage',
    ]);
    expect(result).toMatchObject({
      status: 'PUBLISHED',
      stopReason: null,
      report: { kind: 'DIAGNOSIS', semantic_guard: { mode: 'enforce', outcome: 'JUDGED', removed: [3] } },
      // Five agent rounds and the SemanticGuard's one judge call (enforce, the default).
      usage: { modelCalls: 6 },
    });
    publishedRunId = result.runId;
    expect(schemaErrors('diagnosis-result', result)).toEqual([]);
    // The evidence per citation: each published citation with its tool, its input and the observation the model saw.
    expect(result.evidence.citations.map((citation: { tool_call_id: string }) => citation.tool_call_id)).toEqual(
      result.report.citations.map((citation: { tool_call_id: string }) => citation.tool_call_id),
    );
    expect(result.evidence.citations[1]).toMatchObject({
      tool_name: 'query_logs',
      input: expect.stringContaining('"keyword":"HikariPool"'),
      observation: expect.stringContaining('HikariPool-1 - pool stats (total=5, active=5, idle=0'),
      verdicts: [{ analysis_index: 1, verdict: 'SUPPORTED' }],
    });
    expect(engineStarted()).toBe(false);

    const trace = await start('trace', [publishedRunId]).done;
    expect(trace.code).toBe(0);
    expect(trace.stdout).toContain(`run ${publishedRunId}   PUBLISHED`);
    expect(trace.stdout.match(/^round \d/gm)).toHaveLength(5);
    expect(trace.stdout.match(/^judge 6 /gm)).toHaveLength(1);
    expect(engineStarted()).toBe(false);
  });

  it('shows a live timeline and the report for a person without --json (a child process: its own streams)', async () => {
    server.script.push(...structuredClone(conversation.responses));
    server.judgeScript.push(...structuredClone(conversation.judgeResponses));
    const finished = await startProcess('diagnose', [conversation.query]).done;
    expect(finished.code).toBe(0);
    expect(finished.stderr).toMatch(
      /▸ round 1 {2}[\d,]+ in \/ [\d,]+ out tokens {2}\d+(\.\d)? m?s {2}→ lookup_knowledge/,
    );
    expect(finished.stderr).toMatch(
      /⚙ query_logs payment-gateway 2026-11-30 14:00–15:00 keyword=HikariPool limit=10 → 67 matching lines, 10 shown {2}\d+(\.\d)? m?s {2}call_00_\w+/,
    );
    expect(finished.stderr).toContain('the model judged lookup_knowledge call_00_Vw3kQz8RbN2mT6yHcJ5pLx1a: GAINED');
    // The function's JSON log lines go to the log file, never onto the view or the answer.
    // (The report's evidence previews quote the log lines the model saw, which have a "level" of their own; the
    // function's lines are the ones naming its service.)
    expect(`${finished.stdout}${finished.stderr}`).not.toContain('"service":"diagnosis-agent"');
    expect(`${finished.stdout}${finished.stderr}`).not.toMatch(/^\{"level"/m);
    expect(finished.stdout).toContain('━━ 诊断结论 Diagnosis ━━');
    expect(finished.stdout).toContain('证据: query_logs call_00_');
    expect(finished.stdout).toContain('语义校验 SemanticGuard (enforce, judge deepseek-v4-flash)');
    expect(finished.stdout).toMatch(/分析 4: UNCLEAR — .+ {2}\[已移除 removed\]/);
    expect(finished.stdout).toContain('证据 Evidence (what each cited check asked, and what the model saw)');
    expect(finished.stdout).toContain(
      'query_logs payment-gateway 2026-11-30 14:00–15:00 keyword=HikariPool limit=10 → 67 matching lines, 10 shown',
    );
    expect(finished.stdout).toMatch(/run \w{26} {3}status PUBLISHED/);
  });

  it('exits 2 on a fallback', async () => {
    server.script.push(wireText(draftAnswer(supportedDraft(['call_00_invented']))));
    const finished = await diagnose([conversation.query, '--json']);
    expect(finished.code).toBe(2);
    const result = JSON.parse(finished.stdout);
    expect(result).toMatchObject({ status: 'FALLBACK', report: { error_code: 'GUARD_UNKNOWN_CITATION' } });
    expect(schemaErrors('diagnosis-result', result)).toEqual([]);
  });

  it('asks for JSON mode in the Draft round only, and prints a fenced Draft’s FALLBACK code with its English cause', async () => {
    const before = server.requests.length;
    const call = 'call_00_fencedDraftLogs000000001';
    server.script.push(
      wireToolCalls([{ id: call, name: 'query_logs', arguments: envelope(LOGS_INPUT) }]),
      wireText(`\`\`\`json\n${draftAnswer(supportedDraft([call]))}\n\`\`\``),
    );
    const finished = await diagnose([conversation.query], { DIAGNOSIS_MAX_TOOL_CALLS: '1' });
    expect(finished.code).toBe(2);
    const sent = server.requests.slice(before);
    expect(sent).toHaveLength(2);
    expect(sent[0]).not.toHaveProperty('response_format');
    expect(sent[1]).toMatchObject({ response_format: { type: 'json_object' }, tool_choice: 'none' });
    // The earlier round's tools, re-sent unchanged: the prompt cache's prefix (issue #37).
    expect(JSON.stringify(sent[1]?.tools)).toBe(JSON.stringify(sent[0]?.tools));
    expect(finished.stdout).toContain('(FALLBACK) ━━');
    expect(finished.stdout).toContain(
      'code DRAFT_NOT_JSON: the model’s final answer was not a bare JSON DiagnosisDraft (a ```json fence',
    );
    const runId = finished.stdout.match(/^run (\w{26}) /m)?.[1] ?? '';
    const trace = await start('trace', [runId]).done;
    expect(trace.stdout).toContain('cause: FALLBACK · DRAFT_NOT_JSON');
    expect(trace.stdout).toContain('  why: the model’s final answer was not a bare JSON DiagnosisDraft');
  });

  it('exits 1 on a failed run', async () => {
    server.script.push({ status: 500, body: { error: { message: 'boom' } } });
    const finished = await diagnose([conversation.query, '--json']);
    expect(finished.code).toBe(1);
    const result = JSON.parse(finished.stdout);
    expect(result).toMatchObject({ status: 'FAILED', report: { error_code: 'MODEL_FAILED' } });
    expect(schemaErrors('diagnosis-result', result)).toEqual([]);
  });

  it('says what to check when the model endpoint refuses the key, and shows none of its answer', async () => {
    server.script.push({ status: 401, body: { error: { message: 'RUNNER-BODY-MARKER invalid key sk-runner-test' } } });
    const finished = await diagnose([conversation.query]);
    expect(finished.code).toBe(1);
    expect(finished.stdout).toContain('诊断失败 (FAILED)');
    expect(finished.stdout).toContain('Model endpoint: HTTP 401 · APICallError');
    expect(finished.stdout).toContain('the model endpoint answered 401 Unauthorized: check DIAGNOSIS_MODEL_API_KEY');
    expect(`${finished.stdout}${finished.stderr}`).not.toMatch(/RUNNER-BODY-MARKER|sk-runner-test/);

    const runId = finished.stdout.match(/^run (\w{26}) /m)?.[1] ?? '';
    const trace = await start('trace', [runId]).done;
    expect(trace.stdout).toContain(`run ${runId}   FAILED   code MODEL_FAILED`);
    expect(trace.stdout).toContain('model endpoint: HTTP 401 · APICallError');
    expect(trace.stdout).toContain('cause: FAILED · MODEL_FAILED · model endpoint HTTP 401 · APICallError');
  });

  it('exits 69 pointing to the demo when there is no model key', async () => {
    const finished = await diagnose([conversation.query], { DIAGNOSIS_MODEL_API_KEY: '' });
    expect(finished.code).toBe(69);
    expect(finished.stderr).toContain('npm run demo');
  });

  it('exits 64 with the input error, on one line, for a query over the limit', async () => {
    const finished = await diagnose(['订'.repeat(1_400), '--json']);
    expect(finished.code).toBe(64);
    expect(finished.stderr).toMatch(/^diagnosis diagnose: DiagnosisInputError: QUERY_TOO_LARGE: [^\n]+\n$/);
    expect(finished.stdout).toBe('');
  });

  it('ends the run CANCELLED in the table and exits 130 on Ctrl-C (SIGINT, a child process)', async () => {
    const runner = await runnerWaitingForTheModel(startProcess);
    runner.child.kill('SIGINT');
    const finished = await runner.done;
    expect(finished.code).toBe(130);
    expect(finished.stderr).toContain('cancelling the run');
    const runId = /run ([0-9A-Z]{26}) {2}enterprise/.exec(finished.stderr)?.[1] ?? '';
    const trace = await start('trace', [runId]).done;
    expect(trace.code).toBe(0);
    expect(trace.stdout).toMatch(/CANCELLED/);
  });

  it('cancels a run started in another terminal with npm run cancel', async () => {
    const runner = await runnerWaitingForTheModel(start);
    const runId = await runIdOf(runner);
    const cancelled = await start('cancel', [runId]).done;
    expect(cancelled).toMatchObject({ code: 0 });
    expect(cancelled.stdout).toContain('asked to stop');
    const finished = await runner.done;
    expect(finished.code).toBe(130);
    const again = await start('cancel', [runId]).done;
    expect(again.stdout).toBe(`run ${runId}: nothing to cancel, the run had already ended CANCELLED\n`);
    expect(again.code).toBe(0);
    // An unknown run (exit 3) and no run id (exit 64) are refused in cli.test.ts, on the shared DynamoDB Local.
  });

  describe('diagnosis trace', () => {
    it.skipIf(!CHROMIUM && !process.env.CI)(
      'writes a Mermaid diagram and a self-contained page that Chromium renders',
      async () => {
        expect(publishedRunId).not.toBe('');
        // NOTE: the first test's `diagnosis trace` of this run wrote both files; running it again here only cost one
        // more DynamoDB Local start, which alone took this test past its time on a loaded machine.
        const mermaid = readFileSync(join(dataDir, 'traces', `${publishedRunId}.mmd`), 'utf8');
        checkMermaidStructure(mermaid);
        expect(mermaid.match(/^ {4}Harness->>Agent: round \d+ allowed$/gm)).toHaveLength(5);
        expect(mermaid.match(/^ {4}SG->>Audit: agent_step 6 \(JUDGE\)/gm)).toHaveLength(1);
        expect(mermaid.match(/^ {4}Agent->>Tool: /gm)).toHaveLength(4);
        expect(mermaid).toContain('Release-->>App: PUBLISHED');

        const htmlPath = join(dataDir, 'traces', `${publishedRunId}.html`);
        const html = readFileSync(htmlPath, 'utf8');
        expect(html).not.toMatch(/https?:|\/\/[a-z]|<script|<link|<img|@import|url\(/i);
        expect(html).not.toContain(conversation.responses[0]?.choices[0]?.message.reasoning_content);

        const visit = await visitPage(
          `file://${htmlPath}`,
          "document.querySelectorAll('li.round').length + ':' + document.querySelectorAll('li.tool').length + ':' + document.querySelectorAll('li.judge').length + ':' + document.querySelectorAll('details.evidence').length",
          { fontsOf: '#query' },
        );
        expect(visit.consoleErrors).toEqual([]);
        expect(visit.evaluate).toBe('5:4:1:4');
        expect(distinctColours(visit.screenshot)).toBeGreaterThan(20);
        expect(inkShare(visit.screenshot)).toBeGreaterThan(0.02);
        // The query's Chinese is drawn with a CJK font (what Chromium used, not what the CSS asked for); without one,
        // it would be boxes (see citation-evidence.test.ts for the checks failing on a machine without the font).
        expect(visit.platformFonts.some((font) => isCjkFontName(font.familyName))).toBe(true);
      },
    );

    it('shows the reasoning only with --include-reasoning', async () => {
      const reasoning = conversation.responses[0]?.choices[0]?.message.reasoning_content ?? '';
      const plain = await start('trace', [publishedRunId]).done;
      expect(plain.stdout).not.toContain(reasoning);
      const withReasoning = await start('trace', [publishedRunId, '--include-reasoning']).done;
      expect(withReasoning.stdout).toContain(reasoning);
      expect(readFileSync(join(dataDir, 'traces', `${publishedRunId}.html`), 'utf8')).toContain(reasoning.slice(0, 20));
    });

    it('exits 3 for an unknown run, on one line', async () => {
      const finished = await start('trace', ['no-such-run']).done;
      expect(finished.code).toBe(3);
      expect(finished.stderr).toBe(`diagnosis trace: no run no-such-run in table ${tableName}\n`);
    });
  });
});

describe('diagnosis demo', () => {
  it('diagnoses the E1001 incident with no key, saying that the model is scripted, and shows the judge’s verdicts', async () => {
    const finished = await start('demo', [], { DIAGNOSIS_MODEL_API_KEY: '', DIAGNOSIS_MODEL_BASE_URL: '' }).done;
    expect(finished.code).toBe(0);
    expect(finished.stderr).toContain('the model is SCRIPTED');
    expect(finished.stdout).toContain('payment-gateway 数据库连接池耗尽');
    expect(finished.stdout).toContain('结论 conclusion: SUPPORTED');
    expect(finished.stdout).toContain('status PUBLISHED');
    expect(engineStarted()).toBe(false);
  });
});

/** The structure of a Mermaid sequence diagram: the header, declared participants, and only known statement forms. */
function checkMermaidStructure(text: string): void {
  const lines = text.trimEnd().split('\n');
  expect(lines[0]).toBe('sequenceDiagram');
  const participants = new Set<string>();
  for (const line of lines.slice(1)) {
    const declared = /^ {4}participant (\w+) as [^;#]+$/.exec(line);
    if (declared?.[1] !== undefined) {
      participants.add(declared[1]);
      continue;
    }
    const message = /^ {4}(\w+)(->>|-->>)(\w+): [^;#<>{}]+$/.exec(line);
    const note = /^ {4}Note over (\w+),(\w+): [^;#<>{}]+$/.exec(line);
    expect(message !== null || note !== null, `not a sequence diagram statement: ${line}`).toBe(true);
    for (const name of message === null ? [note?.[1], note?.[2]] : [message[1], message[3]]) {
      expect(participants.has(name ?? ''), `undeclared participant in: ${line}`).toBe(true);
    }
  }
  expect([...participants]).toEqual(['App', 'Harness', 'Agent', 'Tool', 'Audit', 'EG', 'SG', 'Release']);
}
