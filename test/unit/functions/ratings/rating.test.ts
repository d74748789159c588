import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { DEVELOPMENT_MASKING_SECRET, type FeedbackInput } from '@diagnosis/core';
import {
  createMemoryFeedbackStore,
  createMemoryPastIncidentStore,
  createMemoryStores,
  type MemoryStores,
} from '@diagnosis/core/store';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createRating, type RatingDeps } from '../../../../functions/ratings/rating.ts';
import type { RatingParts } from '../../../../functions/ratings/rating-setup.ts';
import { outcomeOf } from '../../../support/finished-runs.ts';
import { supportedDraft } from '../../../support/run-fixtures.ts';

const ROOT = resolve(import.meta.dirname, '../../../..');
const NOW = Date.parse('2026-12-06T10:00:00.000Z');
const input = (verdict: FeedbackInput['verdict']): FeedbackInput => ({ verdict, rootCause: null, note: null });

async function publishedRun(runs: MemoryStores) {
  await runs.startRun({ runId: 'r1', sessionId: 's1', enterpriseId: 'E1001', query: 'q', continueSession: false });
  await runs.completeRun('r1', { ...outcomeOf('PUBLISHED', supportedDraft(['call_0'])), masking: 'identifiers' });
  const run = await runs.getRun('r1');
  if (run === null) throw new Error('no run');
  return run;
}

function world() {
  const runs = createMemoryStores();
  const incidents = createMemoryPastIncidentStore();
  const rate = createRating({
    feedback: createMemoryFeedbackStore(),
    masking: { secret: DEVELOPMENT_MASKING_SECRET, mode: 'identifiers', pseudonyms: runs },
    memory: { incidents, retentionDays: 30 },
    now: () => NOW,
  });
  return { runs, incidents, rate };
}

describe('createRating', () => {
  it('remembers the run as a past incident when it is rated CORRECT, kept for the retention', async () => {
    const { runs, incidents, rate } = world();
    const run = await publishedRun(runs);
    expect(await rate({ run, caller: 'slack:T0E1001AA:U0PERSON1', input: input('CORRECT') })).toMatchObject({
      created: true,
    });
    expect(await incidents.get('E1001', 'r1', NOW)).toMatchObject({
      runId: 'r1',
      rating: 'CORRECT',
      expiresAt: NOW + 30 * 86_400_000,
    });
  });

  it('retracts the past incident when any caller rates the run WRONG, whoever remembered it', async () => {
    const { runs, incidents, rate } = world();
    const run = await publishedRun(runs);
    await rate({ run, caller: 'arn:aws:sts::111122223333:assumed-role/OpsE1001/alice', input: input('CORRECT') });
    await rate({ run, caller: 'slack:T0E1001AA:U0PERSON1', input: input('WRONG') });
    expect(await incidents.get('E1001', 'r1', NOW)).toBeNull();
    await rate({ run, caller: 'slack:T0E1001AA:U0PERSON2', input: input('CORRECT') });
    expect(await incidents.get('E1001', 'r1', NOW)).toBeNull();
  });

  it('requires the enterprise’s memory by its type: a composition without it fails npm run typecheck', () => {
    type Requires<T, K extends keyof T> = Record<never, never> extends Pick<T, K> ? false : true;
    expectTypeOf<Requires<RatingDeps, 'memory'>>().toEqualTypeOf<true>();
    expectTypeOf<Requires<RatingParts, 'pastIncidentRetentionDays'>>().toEqualTypeOf<true>();
  });
});

/** Every TypeScript source under `folder` (no node_modules), relative to the repository's root. */
function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules') return [];
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}

describe('the rating use case', () => {
  it('is composed once: nothing deployed or local records a rating but functions/ratings/', () => {
    const callers = ['functions', 'packages/cli/src', 'packages/eval/src', 'packages/devkit/src']
      .flatMap((folder) => sources(join(ROOT, folder)))
      .filter((file) => {
        const code = readFileSync(join(ROOT, file), 'utf8');
        // A call, or the name imported (under any alias) from the core.
        return (
          /\brecordFeedback\s*\(/.test(code) || /import[^;]*\brecordFeedback\b[^;]*from '@diagnosis\/core'/.test(code)
        );
      });
    expect(callers).toEqual(['functions/ratings/rating.ts']);
  });
});
