import { utf8Bytes } from '../run/utf8.ts';
import { CHANGE_LIMITS, type ChangeStore } from '../store/change-store.ts';

/** The longest the count of a triggered run's lookback changes may take; past it the question says nothing of them. */
const LOOKBACK_CHANGES_TIMEOUT_MS = 500;

/**
 * How many changes of the enterprise landed in a triggered run's lookback — from its window's start to when the
 * incident began — as one bounded read (`matched` is counted over the range's newest {@link CHANGE_LIMITS}`.scan`).
 * Null when the read failed or took longer than `timeoutMs`: the run then starts without the hint, never later.
 */
export async function countLookbackChanges(
  changes: Pick<ChangeStore, 'list'>,
  enterpriseId: string,
  range: { fromMs: number; toMs: number },
  timeoutMs: number = LOOKBACK_CHANGES_TIMEOUT_MS,
): Promise<number | null> {
  const signal = AbortSignal.timeout(timeoutMs);
  const read = changes.list(enterpriseId, { ...range, limit: 1, signal }).then(
    (result) => result.matched,
    () => null,
  );
  const timedOut = new Promise<null>((resolve) =>
    signal.addEventListener('abort', () => resolve(null), { once: true }),
  );
  return Promise.race([read, timedOut]);
}

/**
 * A triggered run's question with the number of changes in its lookback: a hint to look at the change stream
 * (`query_logs`, service `changes`), never evidence — the model cannot cite it, only the rows it then reads. Appended
 * only when it fits `maxQueryBytes` (the question was built to fit it; the hint never pushes it over). NOTE: a text of
 * the system's, with a count in it only, so it carries nothing of a sender.
 */
export function withLookbackChangesHint(query: string, count: number | null, maxQueryBytes: number): string {
  if (count === null) return query;
  const counted = count >= CHANGE_LIMITS.scan ? `至少 ${CHANGE_LIMITS.scan}` : String(count);
  const hint = `\n（提示，不是证据：回看窗口内到告警开始，本企业记录了 ${counted} 条变更；可用 query_logs 的 service changes 查看。）`;
  const combined = `${query}${hint}`;
  return utf8Bytes(combined) <= maxQueryBytes ? combined : query;
}
