import type { ModelStepEvent } from '../audit-hook.ts';
import type { Item } from './item.ts';
import { reasoningItem } from './reasoning-item.ts';
import { capModelTexts, stepItem } from './step-item.ts';

/**
 * A model round's two items: the step (counters, tool calls) in the run's partition, and the raw reasoning and
 * assistant text in the run's reasoning partition, kept `reasoningRetentionDays`.
 */
export function stepItems(
  event: ModelStepEvent,
  nowMs: number,
  retentionDays: number,
  reasoningRetentionDays = retentionDays,
): [Item, Item] {
  const texts = capModelTexts(event);
  return [stepItem(event, texts, nowMs, retentionDays), reasoningItem(event, texts, nowMs, reasoningRetentionDays)];
}
