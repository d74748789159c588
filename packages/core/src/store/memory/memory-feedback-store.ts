import { FEEDBACK_LIMITS, type FeedbackStore } from '../feedback-store.ts';
import { callerSortKeyPrefix, feedbackItem, feedbackOf, feedbackPartitionKey } from '../items/feedback-item.ts';
import type { Item } from '../items/item.ts';

export type MemoryFeedbackStore = FeedbackStore & { readonly items: ReadonlyMap<string, Item> };

/**
 * The feedback store in memory, with the DynamoDB adapter's behaviour (the same items, built by the same item module;
 * the same conditional puts; the same order and bounds). The contract suite runs against both.
 */
export function createMemoryFeedbackStore(options: { retentionDays?: number } = {}): MemoryFeedbackStore {
  const items = new Map<string, Item>();
  const retentionDays = options.retentionDays ?? 90;
  const list = (runId: string, prefix: string, limit: number) =>
    [...items.values()]
      .filter((item) => item.pk === feedbackPartitionKey(runId) && item.sk.startsWith(prefix))
      .sort((a, b) => (a.sk < b.sk ? -1 : 1))
      .slice(0, limit)
      .map(feedbackOf);
  return {
    items,
    listFeedback: async (runId) => list(runId, '', FEEDBACK_LIMITS.storedPerRun),
    listCallerFeedback: async (runId, callerKey) =>
      list(runId, callerSortKeyPrefix(callerKey), FEEDBACK_LIMITS.ratingsPerCaller),
    async putFeedback(entry, runCreatedAt) {
      const item = feedbackItem(entry, runCreatedAt, retentionDays);
      await Promise.resolve();
      const key = `${item.pk}|${item.sk}`;
      if (items.has(key)) return false;
      items.set(key, structuredClone(item));
      return true;
    },
  };
}
