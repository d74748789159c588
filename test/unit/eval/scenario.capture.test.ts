import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { scenarioCaptureSchema } from '../../../packages/eval/src/scenario.ts';

describe('scenarioCaptureSchema', () => {
  const capture = (status: string) => ({
    runId: 'r1',
    capturedAt: '2026-12-01T00:00:00.000Z',
    source: 'table',
    feedback: { verdict: 'CORRECT', rootCause: null },
    original: { status, conclusion: null },
    missing: [],
  });

  it('reads a capture written before the words were one (SUCCEEDED) as PUBLISHED, for the deprecation period', () => {
    expect(v.parse(scenarioCaptureSchema, capture('SUCCEEDED')).original.status).toBe('PUBLISHED');
    expect(v.parse(scenarioCaptureSchema, capture('PUBLISHED')).original.status).toBe('PUBLISHED');
  });

  it('refuses a status that is no word of ours', () => {
    expect(v.safeParse(scenarioCaptureSchema, capture('DONE')).success).toBe(false);
  });
});
