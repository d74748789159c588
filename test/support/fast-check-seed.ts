import fc from 'fast-check';

/**
 * Every property test runs from a fixed seed by default, so a run is reproducible and CI never passes or fails by
 * luck: `FC_SEED` (an integer) replaces it, `FC_SEED=random` draws one (`npm run test:properties:long` does, many
 * times). A failing property prints its seed, path and counterexample (fast-check's own report), and
 * `FC_SEED=<seed> npx vitest run <file>` replays it.
 */
export const DEFAULT_PROPERTY_SEED = 20_261_203;

export function propertySeed(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_PROPERTY_SEED;
  if (text === 'random') return Math.floor(Math.random() * 0x7fff_ffff);
  const seed = Number(text);
  if (!Number.isSafeInteger(seed))
    throw new Error(`FC_SEED must be an integer or "random", not ${JSON.stringify(text)}`);
  return seed;
}

fc.configureGlobal({ seed: propertySeed(process.env.FC_SEED) });
