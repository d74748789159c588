import { describe, expect, it } from 'vitest';
import { createLinkedAbort } from '../../../../packages/core/src/harness/linked-abort.ts';

describe('createLinkedAbort', () => {
  it('aborts with the parent’s reason when the parent aborts first', () => {
    const parent = new AbortController();
    const linked = createLinkedAbort(parent.signal);
    parent.abort('deadline');
    linked.abort('timeout');
    expect(linked.signal.reason).toBe('deadline');
  });

  it('keeps its own reason when it aborts before the parent', () => {
    const parent = new AbortController();
    const linked = createLinkedAbort(parent.signal);
    linked.abort('timeout');
    parent.abort('deadline');
    expect(linked.signal.reason).toBe('timeout');
  });

  it('is aborted at once under a parent that already is', () => {
    const parent = new AbortController();
    parent.abort('cancelled');
    expect(createLinkedAbort(parent.signal).signal.reason).toBe('cancelled');
  });

  it('no longer follows the parent once unlinked', () => {
    const parent = new AbortController();
    const linked = createLinkedAbort(parent.signal);
    linked.unlink();
    parent.abort('deadline');
    expect(linked.signal.aborted).toBe(false);
  });
});
