import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCH_HELPERS, benchesWithoutSmoke, SMOKE_RUNS, smokeFailure } from '../../../scripts/bench-smoke.ts';

describe('smokeFailure', () => {
  it('passes a bench that exited 0 and printed a non-zero figure', () => {
    expect(smokeFailure(0, 'node v24.21.0 on linux/x64\nrun 1: alarm → card 212.4 ms\n')).toBeNull();
    expect(smokeFailure(0, 'calls 2  input 6011  output 512\n')).toBeNull();
  });

  it('fails a bench that exited non-zero or was killed', () => {
    expect(smokeFailure(1, 'Error: MASKING_SECRET is required\n')).toBe('exited 1');
    expect(smokeFailure(null, 'started\n')).toBe('killed (a signal or the time limit)');
  });

  it('fails a bench whose figures are not numbers when its samples were empty', () => {
    expect(smokeFailure(0, 'alarm → card: median NaN ms, p95 NaN ms (n=0)\n')).toMatch(/NaN/);
    expect(smokeFailure(0, 'ratio Infinity× bare\n')).toMatch(/Infinity/);
    expect(smokeFailure(0, 'cold start median 0.0 ms (n=0)\n')).toMatch(/n=0/);
  });

  it('fails a bench that printed only its header and zeros', () => {
    expect(smokeFailure(0, 'node v24.21.0 on linux/x64\n## input growth\ninput 0  output 0  cost $0.00000\n')).toBe(
      'printed no figure',
    );
    expect(smokeFailure(0, '')).toBe('printed no figure');
  });
});

describe('SMOKE_RUNS', () => {
  it('gives every bench of bench/ a smoke run, and names no bench that does not exist', () => {
    const files = readdirSync(new URL('../../../bench/', import.meta.url)).filter((file) => file.endsWith('.ts'));

    expect(benchesWithoutSmoke(files)).toEqual([]);
    for (const file of Object.keys(SMOKE_RUNS)) expect(files).toContain(file);
    for (const file of BENCH_HELPERS) expect(files).toContain(file);
  });

  it('names a new bench without a smoke run', () => {
    expect(benchesWithoutSmoke(['run-growth.ts', 'latency.ts', 'new-figure.ts', 'README.md'])).toEqual([
      'new-figure.ts',
    ]);
  });
});
