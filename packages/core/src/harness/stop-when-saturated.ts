import type { RunContext } from '../run/run-context.ts';
import { saturated } from './budget-policy.ts';
import { type CollectionState, stopCollection } from './collection-state.ts';
import type { ProgressTracker } from './progress-tracker.ts';

/**
 * Ends collection as INFORMATION_SATURATED once the run's NO_GAIN streak reaches the policy's limit. Called wherever
 * the streak may have grown: after the model's evaluation, a repeated call, an empty result.
 */
export function stopWhenSaturated(run: RunContext, tracker: ProgressTracker, collection: CollectionState): void {
  if (saturated(run, tracker.noGainStreak())) stopCollection(collection, 'INFORMATION_SATURATED');
}
