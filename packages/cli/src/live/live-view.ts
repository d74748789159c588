/**
 * The live view of a local run on stderr, fed in-process by a tee beside the run's audit store (`teeAuditStore`):
 * each model round as the harness audited it (tokens, its real duration, the tools it asked for), each tool call in
 * a few words (what was asked and what came back: `describeToolCall`), the model's judgement of its previous result,
 * stops. Lines come in exactly the audit's order (no table is read), and a spinner shows the wait for the model when
 * stderr is a terminal. Nothing else writes to stderr while it runs: the run's JSON log lines go to a file.
 */

import {
  type AuditListener,
  describeToolCall,
  envelopeInput,
  type ModelStepEvent,
  type ToolInvocationEvent,
} from '@diagnosis/core';
import { terminalSafe } from '../command-line.ts';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface LiveViewOptions {
  write: (text: string) => void;
  /** Show the spinner (stderr is a terminal). */
  spinner: boolean;
  now?: () => number;
}

export interface LiveView {
  /** Goes beside the run's store. */
  listener: AuditListener;
  /** Stops the spinner and clears its line. */
  stop(): void;
}

export function createLiveView(options: LiveViewOptions): LiveView {
  const { write } = options;
  const now = options.now ?? Date.now;
  const toolNames = new Map<string, string>();
  let lastEventAt = now();
  let spinnerShown = false;
  let frame = 0;

  const clearSpinner = () => {
    if (spinnerShown) write('\r\x1b[2K');
    spinnerShown = false;
  };
  const line = (text: string) => {
    clearSpinner();
    // What a run shows (a tool's arguments, a model's words) reaches the terminal without its controls.
    write(`${terminalSafe(text)}\n`);
    lastEventAt = now();
  };

  const timer = options.spinner
    ? setInterval(() => {
        frame = (frame + 1) % FRAMES.length;
        write(`\r\x1b[2K${FRAMES[frame]} waiting for the model… ${duration(now() - lastEventAt)}`);
        spinnerShown = true;
      }, 200)
    : undefined;
  timer?.unref();

  return {
    listener: {
      onModelStep: (event) => line(describeStep(event)),
      onToolInvocation(event) {
        const judged = previousJudgement(event.input);
        if (judged !== null) {
          const tool = toolNames.get(judged.toolCallId);
          line(
            `      ↳ the model judged ${tool === undefined ? '' : `${tool} `}${judged.toolCallId}: ${judged.evaluation}`,
          );
        }
        if (!toolNames.has(event.toolCallId)) toolNames.set(event.toolCallId, event.toolName);
        line(describeTool(event));
      },
    },
    stop() {
      if (timer !== undefined) clearInterval(timer);
      clearSpinner();
    },
  };
}

/** `▸ round 2  1,234 in / 56 out tokens  2.3 s  → query_logs` */
function describeStep(event: ModelStepEvent): string {
  const who = event.role === 'JUDGE' ? 'judge (SemanticGuard)' : 'round';
  const cached = event.usage.cachedInputTokens ? `, ${number(event.usage.cachedInputTokens)} cached` : '';
  const estimated = event.usageEstimated === true ? ' (estimated)' : '';
  const asked =
    event.toolCalls.length === 0
      ? event.role === 'JUDGE'
        ? 'verdicts'
        : 'answer'
      : `→ ${event.toolCalls.map((call) => call.toolName).join(', ')}`;
  return `  ▸ ${who} ${event.stepNumber}  ${number(event.usage.inputTokens)} in${cached} / ${number(event.usage.outputTokens)} out tokens${estimated}  ${duration(event.endedAt - event.startedAt)}  ${asked}`;
}

/** `⚙ query_logs payment-gateway 14:00–15:00 kw=HikariPool → 67 matches  4 ms  call_00_…` */
function describeTool(event: ToolInvocationEvent): string {
  return `    ⚙ ${describeToolCall(event.toolName, envelopeInput(event.input), event.observation)}  ${duration(event.endedAt - event.startedAt)}  ${printableId(event.toolCallId)}`;
}

function previousJudgement(input: unknown): { toolCallId: string; evaluation: string } | null {
  const previous = (input as { previous_observation?: { tool_call_id?: unknown; evaluation?: unknown } } | null)
    ?.previous_observation;
  if (typeof previous?.tool_call_id !== 'string' || typeof previous.evaluation !== 'string') return null;
  return { toolCallId: printableId(previous.tool_call_id), evaluation: printableId(previous.evaluation).slice(0, 16) };
}

/** A tool call id as the harness allows them (`[A-Za-z0-9_.:-]`, ≤ 200); anything else is shown as invalid. */
function printableId(id: string): string {
  return /^[A-Za-z0-9_.:-]{1,200}$/.test(id) ? id : '(invalid id)';
}

function duration(ms: number): string {
  const value = Math.max(0, ms);
  return value < 1_000 ? `${Math.round(value)} ms` : `${(value / 1_000).toFixed(1)} s`;
}

function number(value: number): string {
  return value.toLocaleString('en');
}
