import { describe, expect, it } from 'vitest';
import { describeSeenBefore } from '../../../../packages/cli/src/render/describe-seen-before.ts';

describe('describeSeenBefore', () => {
  it('names the past run, when it was diagnosed, its rating and the lookups that returned it', () => {
    expect(
      describeSeenBefore({
        run_id: '01KB3AAAAAAAAAAAAAAAAAAAAA',
        occurred_at: '2026-11-02T06:10:42.000Z',
        rating: 'PARTIALLY_CORRECT',
        tool_call_ids: ['call_2', 'call_5'],
      }),
    ).toBe(
      'run 01KB3AAAAAAAAAAAAAAAAAAAAA · diagnosed 2026-11-02 06:10 UTC · rated PARTIALLY_CORRECT · returned by call_2, call_5',
    );
  });

  it('replaces control characters, so a stored value cannot drive a terminal', () => {
    expect(describeSeenBefore({ run_id: 'r\u001b[2J', occurred_at: 'x', rating: 'CORRECT', tool_call_ids: [] })).toBe(
      'run r\uFFFD[2J · diagnosed x · rated CORRECT',
    );
  });
});
