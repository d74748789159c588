import type { DiagnosisReport } from '../release/release-diagnosis.ts';
import type { ToolDisposition } from '../store/audit-hook.ts';

/** One audited tool invocation, as an audit event or a stored item holds it (the fields this needs). */
export interface AuditedInvocation {
  toolCallId: string;
  toolName: string;
  disposition: ToolDisposition;
  status: 'READY' | 'ERROR' | null;
  /** The envelope as the model sent it (`{ previous_observation?, input }`). */
  input: unknown;
  /** Exactly what the model saw. */
  observation: unknown;
}

/** The evidence behind one citation of a published report: the check's tool, what was asked and what came back. */
export interface CitationEvidence {
  tool_call_id: string;
  tool_name: string;
  /** The business input the model sent (the envelope's `input`; its evaluation of the previous result left out). */
  input: unknown;
  /** The observation the model saw, byte for byte as audited (at most 8 KiB). */
  observation: unknown;
}

/**
 * The evidence behind every citation of a published report, in the order the report cites its checks, taken from
 * the run's own audit: for each cited id its canonical record (the first EXECUTED READY invocation of that id; a
 * rejected reuse of the id never replaces it). A report that is not a published diagnosis cites nothing: []. NOTE:
 * the EvidenceGuard verified every citation against these same audited checks, so a cited id without one means the
 * audit handed in is incomplete; it is left out rather than invented.
 */
export function buildCitationEvidence(
  report: DiagnosisReport,
  invocations: Iterable<AuditedInvocation>,
): CitationEvidence[] {
  if (report.kind !== 'DIAGNOSIS') return [];
  const canonical = new Map<string, AuditedInvocation>();
  for (const invocation of invocations) {
    if (invocation.disposition !== 'EXECUTED' || invocation.status !== 'READY') continue;
    if (!canonical.has(invocation.toolCallId)) canonical.set(invocation.toolCallId, invocation);
  }
  const evidence: CitationEvidence[] = [];
  for (const citation of report.citations) {
    const invocation = canonical.get(citation.tool_call_id);
    if (invocation === undefined) continue;
    const envelope = invocation.input as { input?: unknown } | null;
    evidence.push({
      tool_call_id: citation.tool_call_id,
      tool_name: invocation.toolName,
      input: typeof envelope === 'object' && envelope !== null && 'input' in envelope ? envelope.input : envelope,
      observation: invocation.observation,
    });
  }
  return evidence;
}
