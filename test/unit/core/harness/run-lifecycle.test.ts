import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { envelope, KNOWLEDGE_INPUT, noConclusionDraft, T0 } from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound, toolsOffered } from '../../../support/scripted-model.ts';

describe('createRunLifecycle', () => {
  it('makes the next round the final one when the reserve timer fires, even if the clock has not reached it yet', async () => {
    // NOTE: the run's clock stands still, as a clock read a millisecond before the timer's instant would: only the
    // timer says the reserve has begun. A hanging adapter is cut off by it, and the next round must offer no tools.
    const { outcome, model } = await diagnose(
      [
        toolRound([{ id: 'c1', name: 'lookup_knowledge', input: envelope(KNOWLEDGE_INPUT) }]),
        textRound(JSON.stringify(noConclusionDraft())),
      ],
      {
        run: { now: () => T0, deadlineAt: T0 + 5_050, limits: { finalRoundReserveMs: 5_000 } },
        handlers: { lookup_knowledge: () => new Promise(() => undefined) },
      },
    );
    expect(observationsIn(model.doGenerateCalls[1]?.prompt ?? [])[0]).toMatchObject({ code: 'TIMEOUT' });
    expect(toolsOffered(model.doGenerateCalls[1] ?? { prompt: [] })).toEqual([]);
    expect(outcome.ok && outcome.result).toMatchObject({ stopReason: 'DEADLINE', draft: { conclusion: null } });
  });
});
