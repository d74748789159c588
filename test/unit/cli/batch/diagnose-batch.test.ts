import { describe, expect, it } from 'vitest';
import { renderBatchResults } from '../../../../packages/cli/src/batch/diagnose-batch.ts';

describe('renderBatchResults', () => {
  it('keeps the columns aligned past item 9 and for an item without a run', () => {
    const results = Array.from({ length: 12 }, (_, index) =>
      index === 10
        ? { Error: 'States.TaskFailed' }
        : { runId: `01KB${String(index).padStart(22, '0')}`, status: 'PUBLISHED' },
    );
    const lines = renderBatchResults(results).trimEnd().split('\n');
    expect(lines).toHaveLength(12);
    expect(lines[0]).toBe(' 1  01KB0000000000000000000000  PUBLISHED');
    expect(lines[9]).toBe('10  01KB0000000000000000000009  PUBLISHED');
    expect(lines[10]).toBe('11  (no run)                    States.TaskFailed');
    const outcomeColumn = new Set(lines.map((line) => line.search(/(PUBLISHED|States)/)));
    expect(outcomeColumn.size).toBe(1);
  });

  it('prints control characters of an item as ?', () => {
    expect(renderBatchResults([{ runId: 'r\u001b[2J', status: 'FAILED' }])).toBe('1  r?[2J  FAILED\n');
  });
});
