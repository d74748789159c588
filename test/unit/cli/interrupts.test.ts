import { describe, expect, it } from 'vitest';
import { EXIT } from '../../../packages/cli/src/command-line.ts';
import { createInterrupts, ONE_INTERRUPT_MS } from '../../../packages/cli/src/interrupts.ts';

/** The interrupts on a clock the test moves, recording every exit. */
function interruptsAt() {
  const clock = { time: 0, exits: [] as number[] };
  const interrupts = createInterrupts({ now: () => clock.time, exit: (code) => clock.exits.push(code) });
  return { clock, interrupts };
}

describe('createInterrupts', () => {
  it('takes the repeats of one Ctrl-C (npm forwards its own) as one, and a later one as the next', () => {
    const { clock, interrupts } = interruptsAt();
    const calls: number[] = [];
    interrupts.onInterrupt(() => calls.push(clock.time));
    interrupts.receive();
    clock.time = 3;
    interrupts.receive();
    clock.time = ONE_INTERRUPT_MS - 1;
    interrupts.receive();
    expect(calls).toEqual([0]);
    clock.time = ONE_INTERRUPT_MS;
    interrupts.receive();
    expect(calls).toEqual([0, ONE_INTERRUPT_MS]);
    expect(clock.exits).toEqual([]);
  });

  it('stops the command with 130 when no handler is registered, as a process without one would', () => {
    const { clock, interrupts } = interruptsAt();
    const remove = interrupts.onInterrupt(() => undefined);
    remove();
    interrupts.receive();
    expect(clock.exits).toEqual([EXIT.INTERRUPTED]);
  });

  it('calls every handler registered, each removable on its own, the same function twice included', () => {
    const { clock, interrupts } = interruptsAt();
    const calls: string[] = [];
    const handler = () => calls.push('same');
    const first = interrupts.onInterrupt(handler);
    interrupts.onInterrupt(handler);
    interrupts.onInterrupt(() => calls.push('other'));
    first();
    interrupts.receive();
    expect(calls).toEqual(['same', 'other']);
    expect(clock.exits).toEqual([]);
  });
});
