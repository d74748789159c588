import { safeErrorName } from '../errors.ts';
import type { AdapterResult, ToolCallRequest } from '../tools/evidence-adapter.ts';
import { raceAbort } from './race-abort.ts';

/** The one method of an evidence adapter the boundary calls, whatever the tool's input and data types. */
export interface AnyEvidenceAdapter {
  execute(call: ToolCallRequest<unknown>): Promise<AdapterResult<unknown>>;
}

/**
 * Runs an admitted call's adapter, bounded by the collection signal: a throw or a hang becomes a stable ERROR result
 * (INTERNAL, TIMEOUT), never an exception, and an adapter is not started at all once collection is over.
 */
export async function runEvidenceAdapter(
  adapter: AnyEvidenceAdapter,
  request: ToolCallRequest<unknown>,
  signal: AbortSignal,
): Promise<AdapterResult<unknown>> {
  if (signal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'collection window closed' };
  // NOTE: the adapter starts on a microtask, after `raceAbort` listens to the signal, as it always has; an abort
  // answers TIMEOUT at once, even when the adapter honours the signal and rejects on it too.
  const call = Promise.resolve().then(() => adapter.execute(request));
  try {
    return await raceAbort(call, signal, () => timedOut());
  } catch (error) {
    return { status: 'ERROR', code: 'INTERNAL', detail: `adapter threw ${safeErrorName(error)}` };
  }
}

function timedOut(): AdapterResult<unknown> {
  return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted by the harness' };
}
