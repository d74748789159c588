import type { StopReason } from '../run/stop-reason.ts';

/** Thrown (or used as an abort reason) when the harness ends the run at once: no further model or tool work. */
export class HarnessStop extends Error {
  override readonly name = 'HarnessStop';
  readonly reason: StopReason;

  constructor(reason: StopReason) {
    super(`run stopped: ${reason}`);
    this.reason = reason;
  }
}

/** The audit hook rejected: the run fails closed. */
export class AuditFailure extends Error {
  override readonly name = 'AuditFailure';
}

/** The provider call itself failed (HTTP error, malformed response): never retried. */
export class ModelCallFailure extends Error {
  override readonly name = 'ModelCallFailure';
}
