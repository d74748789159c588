import { describe, expect, it } from 'vitest';
import { createCallRefs } from '../../../../packages/core/src/harness/call-refs.ts';

describe('createCallRefs', () => {
  it('numbers the calls in the order the boundary answers them, 1 for the first, and maps the numbers back', () => {
    const refs = createCallRefs();
    expect(refs.assign('call_00_a', 'call_00_a')).toBe(1);
    expect(refs.assign('call_00_b', 'call_00_b')).toBe(2);
    expect(refs.refOf('call_00_b')).toBe(2);
    expect(refs.ids()).toEqual(['call_00_a', 'call_00_b']);
  });

  it('gives a reused id its first number, so a number and an id always name the same checks', () => {
    const refs = createCallRefs();
    refs.assign('call_00_a', 'call_00_a');
    expect(refs.assign('call_00_a', 'call_00_a')).toBe(1);
    expect(refs.ids()).toEqual(['call_00_a']);
  });

  it('maps the number of a refused id to the bounded copy the harness carries on, and knows no unanswered call', () => {
    const refs = createCallRefs();
    const long = `x${'y'.repeat(300)}`;
    expect(refs.assign(long, long.slice(0, 200))).toBe(1);
    expect(refs.ids()).toEqual([long.slice(0, 200)]);
    expect(refs.refOf('call_never_answered')).toBeUndefined();
  });

  it('keeps each run’s numbers to itself', () => {
    const first = createCallRefs();
    first.assign('call_00_a', 'call_00_a');
    first.assign('call_00_b', 'call_00_b');
    const second = createCallRefs();
    expect(second.refOf('call_00_b')).toBeUndefined();
    expect(second.ids()).toEqual([]);
  });
});
