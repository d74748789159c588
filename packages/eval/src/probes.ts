/**
 * Probes: direct calls of the real adapters with the scenario's tenant, independent of any model — the retrieval
 * side of a scenario. Each input goes through the tool boundary's own parser first, as a model's would.
 */
import { createToolInputParser, type EvidenceAdapters, type ToolName } from '@diagnosis/core';
import type { Probe } from './scenario.ts';

export interface ProbeResult {
  tool: ToolName;
  expect: Probe['expect'];
  /** What the adapter answered: OK, EMPTY, ERROR:<code>, or INVALID_INPUT:<paths>. */
  got: string;
  /** mustContain strings that the observation's data does not hold. */
  missing: string[];
  passed: boolean;
  /** A few words on the input, for the scorecard. */
  label: string;
}

const PROBE_TIMEOUT_MS = 30_000;

function probeLabel(probe: Probe): string {
  const input = probe.input as Record<string, unknown>;
  const parts: string[] = [probe.tool];
  for (const key of ['service', 'query_name', 'query', 'keyword', 'trace_id']) {
    if (typeof input[key] === 'string') parts.push(`${key}=${String(input[key]).slice(0, 40)}`);
  }
  return parts.join(' ');
}

export async function runProbes(
  probes: readonly Probe[],
  context: { enterpriseId: string; evidence: EvidenceAdapters; scenarioId: string },
): Promise<ProbeResult[]> {
  const parse = createToolInputParser(context.evidence.query_mysql.catalog);
  const results: ProbeResult[] = [];
  for (const [index, probe] of probes.entries()) {
    const label = probeLabel(probe);
    const parsed = parse(probe.tool, { input: probe.input });
    if (!parsed.ok) {
      results.push({
        tool: probe.tool,
        expect: probe.expect,
        got: `INVALID_INPUT:${parsed.paths.join(',')}`,
        missing: [],
        passed: false,
        label,
      });
      continue;
    }
    const request = {
      runId: `eval-probe-${context.scenarioId}`,
      sessionId: 'eval-probes',
      enterpriseId: context.enterpriseId,
      toolCallId: `probe_${index}`,
      toolName: probe.tool,
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    };
    // NOTE: the parser narrowed the input to the tool's own type; each adapter is called with exactly that.
    const answer =
      parsed.toolName === 'lookup_knowledge'
        ? await context.evidence.lookup_knowledge.execute({ ...request, input: parsed.envelope.input })
        : parsed.toolName === 'query_logs'
          ? await context.evidence.query_logs.execute({ ...request, input: parsed.envelope.input })
          : await context.evidence.query_mysql.execute({ ...request, input: parsed.envelope.input });
    const got = answer.status === 'ERROR' ? `ERROR:${answer.code}` : answer.status;
    const data = answer.status === 'OK' ? JSON.stringify(answer.data) : '';
    const missing = probe.expect === 'EVIDENCE' ? (probe.mustContain ?? []).filter((text) => !data.includes(text)) : [];
    const passed =
      probe.expect === 'EVIDENCE' ? answer.status === 'OK' && missing.length === 0 : answer.status === 'EMPTY';
    results.push({ tool: probe.tool, expect: probe.expect, got, missing, passed, label });
  }
  return results;
}
