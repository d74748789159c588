import type { LanguageModelV4GenerateResult } from '@ai-sdk/provider';
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

/** The audit hook rejected: the run fails closed. `roundResult`: the model round whose audit failed, if any. */
export class AuditFailure extends Error {
  override readonly name = 'AuditFailure';
  readonly roundResult: LanguageModelV4GenerateResult | undefined;

  constructor(message: string, options: { cause?: unknown; roundResult?: LanguageModelV4GenerateResult } = {}) {
    super(message, { cause: options.cause });
    this.roundResult = options.roundResult;
  }
}

/** The provider call itself failed (HTTP error, malformed response): never retried. */
export class ModelCallFailure extends Error {
  override readonly name = 'ModelCallFailure';
}

/**
 * The harness itself failed while handling a round the provider answered (e.g. a result it cannot read): not a
 * provider failure, so it is never reported as one.
 */
export class HarnessFault extends Error {
  override readonly name = 'HarnessFault';
}

/**
 * The abort reason of a provider call that outlived its per-request limit (`modelRequestTimeoutMs`): the run fails as
 * `MODEL_TIMEOUT`, long before its deadline, instead of waiting on an endpoint that never answers.
 */
export class ModelRequestTimeout extends Error {
  override readonly name = 'ModelRequestTimeout';
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super(`no model answer within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}
