import { RunStoreError } from '../../errors.ts';
import type { RunRecord } from '../run-store.ts';
import { runOf } from './run-item.ts';
import { stepOf } from './step-item.ts';
import { toolInvocationOf } from './tool-item.ts';

/**
 * Reads one item of a run's partition back into its typed record (the run, a step or a tool invocation), validating
 * it against its schema; an item of any other entity is `CORRUPT_ITEM`.
 */
export function recordOf(item: Record<string, unknown>): RunRecord {
  switch (item.entity) {
    case 'run':
      return runOf(item);
    case 'agent_step':
      return stepOf(item);
    case 'tool_invocation':
      return toolInvocationOf(item);
    default:
      throw new RunStoreError('CORRUPT_ITEM', 'item of an unknown entity');
  }
}
