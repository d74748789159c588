import { EXIT } from './command-line.ts';

/**
 * Signals closer together than this are one Ctrl-C. NOTE: a terminal sends SIGINT to its whole foreground process
 * group, and `npx` / `npm run` (npm's run-script) also forward the SIGINT they receive to their child: the bin run
 * through npm receives each Ctrl-C twice, a few milliseconds apart. Taken as two, the second would stop `serve` at
 * once (and exit 130) instead of letting its runs end.
 */
export const ONE_INTERRUPT_MS = 1_000;

export interface Interrupts {
  /** Registers a handler for Ctrl-C / SIGTERM; returns its removal. */
  onInterrupt(handler: () => void): () => void;
  /** One SIGINT or SIGTERM the process received. */
  receive(): void;
}

/**
 * The bin's interrupts: each SIGINT or SIGTERM the process receives, but the repeats of one Ctrl-C (within
 * `ONE_INTERRUPT_MS` of the last one delivered), goes to every handler registered; with none registered the command
 * stops at once with exit 130, as a process without handlers would. One listener for the process's whole life, so
 * no signal ever finds none between one handler's removal and the next one's registration (Node would then take
 * its default action and kill the process by the signal).
 */
export function createInterrupts(clock: { now: () => number; exit: (code: number) => void }): Interrupts {
  const handlers = new Set<() => void>();
  let last = Number.NEGATIVE_INFINITY;
  return {
    onInterrupt(handler) {
      // NOTE: a wrapper per registration, so registering the same function twice gives two removable entries.
      const entry = () => handler();
      handlers.add(entry);
      return () => {
        handlers.delete(entry);
      };
    },
    receive() {
      const at = clock.now();
      if (at - last < ONE_INTERRUPT_MS) return;
      last = at;
      if (handlers.size === 0) {
        clock.exit(EXIT.INTERRUPTED);
        return;
      }
      for (const handler of [...handlers]) handler();
    },
  };
}
