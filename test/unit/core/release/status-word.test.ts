import { describe, expect, it } from 'vitest';
import { STATUS_WORDS, statusWordOf } from '../../../../packages/core/src/release/status-word.ts';
import { RUN_STATUSES } from '../../../../packages/core/src/store/run-store.ts';

describe('statusWordOf', () => {
  it('gives every stored status one word, PUBLISHED for the stored SUCCEEDED', () => {
    expect(RUN_STATUSES.map(statusWordOf)).toEqual([
      'QUEUED',
      'RUNNING',
      'PUBLISHED',
      'FALLBACK',
      'FAILED',
      'CANCELLED',
    ]);
    expect(new Set(RUN_STATUSES.map(statusWordOf))).toEqual(new Set(STATUS_WORDS));
  });
});
