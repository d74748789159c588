/**
 * How many cases a long property test runs (issue #37). The developer's loop (`npm test`) runs a short, fixed-seed
 * sample — the same cases every time, so a failure there reproduces exactly; `PROPERTY_RUNS=full` (what `.ci/run`
 * sets, and `npm run test:properties`) runs the full count with a fresh seed each time, which fast-check prints on a
 * failure (`{ seed, path }` reproduce it). NOTE: the short sample keeps every arbitrary and every assertion; only the
 * number of cases changes.
 */
export function propertyRuns(full: number, quick: number, seed: number): { numRuns: number; seed?: number } {
  return process.env.PROPERTY_RUNS === 'full' ? { numRuns: full } : { numRuns: Math.min(quick, full), seed };
}
