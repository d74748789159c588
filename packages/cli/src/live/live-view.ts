/**
 * The live timeline of a local run on stderr: it follows the run's audit trail in the table as the harness writes it
 * (each model round with its tokens and seconds; each tool call with its status and the evaluation the next call gave
 * it; stops), with a spinner while the model thinks when stderr is a terminal.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createDynamoAuditStore,
  type RunRecord,
  type StoredStep,
  type StoredToolInvocation,
} from '@diagnosis/core/store';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export function followRun(options: {
  client: DynamoDBClient;
  tableName: string;
  runId: string;
  write?: (text: string) => void;
}) {
  const store = createDynamoAuditStore({ client: options.client, tableName: options.tableName });
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const tty = options.write === undefined && process.stderr.isTTY === true;
  const seen = new Set<string>();
  const started = Date.now();
  let lastEventAt = started;
  let rounds = 0;
  let spinnerLine = false;
  let frame = 0;
  let polling = false;

  const clearSpinner = () => {
    if (spinnerLine) write('\r\x1b[2K');
    spinnerLine = false;
  };
  const line = (text: string) => {
    clearSpinner();
    write(`${text}\n`);
  };

  async function poll(): Promise<void> {
    if (polling) return;
    polling = true;
    try {
      let cursor: string | undefined;
      const records: RunRecord[] = [];
      do {
        const page = await store.listRunRecords(options.runId, {
          limit: 100,
          ...(cursor === undefined ? {} : { cursor }),
        });
        records.push(...page.records);
        cursor = page.cursor ?? undefined;
      } while (cursor !== undefined);
      const fresh = records
        .filter((record) => record.entity === 'agent_step' || record.entity === 'tool_invocation')
        .filter((record) => !seen.has(keyOf(record)))
        .sort((a, b) => startOf(a) - startOf(b));
      for (const record of fresh) {
        seen.add(keyOf(record));
        lastEventAt = Date.now();
        if (record.entity === 'agent_step') describeStep(record);
        else describeTool(record);
      }
    } catch {
      // The table may not hold the run yet; the next poll tries again.
    } finally {
      polling = false;
    }
  }

  function describeStep(step: StoredStep): void {
    rounds = Math.max(rounds, step.stepNumber);
    const seconds = (Date.parse(step.endedAt) - Date.parse(step.startedAt)) / 1_000;
    const calls =
      step.toolCalls.length === 0 ? 'answer' : `calls ${step.toolCalls.map((call) => call.toolName).join(', ')}`;
    const cached = step.cachedInputTokens ? `, ${step.cachedInputTokens.toLocaleString('en')} cached` : '';
    line(
      `  ▸ ${step.role === 'JUDGE' ? 'judge (SemanticGuard)' : 'round'} ${step.stepNumber}  ${step.inputTokens.toLocaleString('en')} in${cached} / ${step.outputTokens.toLocaleString('en')} out tokens  ${seconds.toFixed(1)} s  ${calls}`,
    );
  }

  function describeTool(tool: StoredToolInvocation): void {
    const evaluated = (tool.input as { previous_observation?: { tool_call_id?: string; evaluation?: string } } | null)
      ?.previous_observation;
    if (evaluated?.tool_call_id !== undefined)
      line(`      ↳ the model judged ${evaluated.tool_call_id}: ${evaluated.evaluation}`);
    const outcome =
      tool.disposition === 'EXECUTED'
        ? tool.status === 'READY'
          ? tool.empty
            ? 'READY, no match'
            : 'READY, evidence'
          : `ERROR ${tool.code}`
        : tool.disposition === 'STOPPED'
          ? 'STOP_REQUIRED: collection is over'
          : `REJECTED ${tool.code}`;
    const ms = Date.parse(tool.endedAt) - Date.parse(tool.startedAt);
    line(`    ⚙ ${tool.toolName} ${tool.toolCallId}  ${outcome}  ${ms} ms`);
  }

  const timer = setInterval(() => {
    void poll();
    if (tty) {
      frame = (frame + 1) % FRAMES.length;
      write(
        `\r\x1b[2K${FRAMES[frame]} round ${rounds + 1}: waiting for the model… ${((Date.now() - lastEventAt) / 1_000).toFixed(1)} s`,
      );
      spinnerLine = true;
    }
  }, 200);

  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      while (polling) await new Promise((resolve) => setTimeout(resolve, 20));
      await poll();
      clearSpinner();
    },
  };
}

function keyOf(record: RunRecord): string {
  return record.entity === 'agent_step'
    ? `S${record.stepNumber}`
    : record.entity === 'tool_invocation'
      ? `T${record.toolCallId}${record.disposition}${record.startedAt}`
      : record.entity;
}

function startOf(record: RunRecord): number {
  return record.entity === 'agent_step' || record.entity === 'tool_invocation'
    ? Date.parse(record.startedAt) + (record.entity === 'tool_invocation' ? 1 : 0)
    : 0;
}
