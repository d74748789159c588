import { describe, expect, it } from 'vitest';
import type { DiagnosisReport } from '../../../packages/core/src/release/release-diagnosis.ts';
import { type AuditedInvocation, buildCitationEvidence } from '../../../packages/core/src/report/citation-evidence.ts';

const invocation = (toolCallId: string, overrides: Partial<AuditedInvocation> = {}): AuditedInvocation => ({
  toolCallId,
  toolName: 'query_logs',
  disposition: 'EXECUTED',
  status: 'READY',
  input: { previous_observation: { tool_call_id: 'x', evaluation: 'GAINED' }, input: { service: toolCallId } },
  observation: { tool_call_id: toolCallId, evidence_status: 'OK', data: { matched: 1, lines: [] } },
  ...overrides,
});

const published = (ids: string[]) =>
  ({
    kind: 'DIAGNOSIS',
    draft: {},
    citations: ids.map((id) => ({ tool_call_id: id, tool_name: 'query_logs', empty: false })),
  }) as unknown as DiagnosisReport;

describe('buildCitationEvidence', () => {
  it('gives each citation its tool, the business input the model sent and the observation it saw, in citation order', () => {
    const evidence = buildCitationEvidence(published(['call_b', 'call_a']), [
      invocation('call_a'),
      invocation('call_b'),
    ]);
    expect(evidence).toEqual([
      {
        tool_call_id: 'call_b',
        tool_name: 'query_logs',
        input: { service: 'call_b' },
        observation: { tool_call_id: 'call_b', evidence_status: 'OK', data: { matched: 1, lines: [] } },
      },
      expect.objectContaining({ tool_call_id: 'call_a', input: { service: 'call_a' } }),
    ]);
  });

  it('takes the canonical record of an id: a later rejected reuse never replaces it', () => {
    const reuse = invocation('call_a', {
      disposition: 'REJECTED',
      status: null,
      input: { input: { service: 'forged' } },
    });
    const [evidence] = buildCitationEvidence(published(['call_a']), [invocation('call_a'), reuse]);
    expect(evidence?.input).toEqual({ service: 'call_a' });
  });

  it('cites nothing for a report that is not a published diagnosis, and never invents a missing check', () => {
    expect(buildCitationEvidence({ kind: 'FALLBACK' } as unknown as DiagnosisReport, [invocation('call_a')])).toEqual(
      [],
    );
    expect(buildCitationEvidence(published(['call_missing']), [invocation('call_a')])).toEqual([]);
  });
});
