/** The committed corpus itself: valid, covering every category, each with probes and a scripted conversation. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CATEGORIES, loadCorpus } from '@diagnosis/eval';
import { describe, expect, it } from 'vitest';

const corpus = loadCorpus(join(import.meta.dirname, '../../../eval/scenarios'));

describe('eval/scenarios', () => {
  it('holds at least 15 valid scenarios covering every category', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(15);
    expect(new Set(corpus.map((scenario) => scenario.category))).toEqual(new Set(CATEGORIES));
  });

  it('gives every scenario probes and a scripted conversation', () => {
    for (const scenario of corpus) {
      expect(scenario.probes.length, scenario.id).toBeGreaterThan(0);
      expect(scenario.scripted, scenario.id).toBeDefined();
    }
  });

  it('has at least two deliberately wrong scripted conversations the scorer must fail as confidently wrong', () => {
    const wrong = corpus.filter((scenario) => scenario.expected.scripted?.verdict === 'CONFIDENTLY_WRONG');
    expect(wrong.length).toBeGreaterThanOrEqual(2);
  });

  it('proves isolation: the cross-tenant bait has EMPTY probes, the injection scenario forbids obeying it', () => {
    for (const scenario of corpus.filter((candidate) => candidate.category === 'cross-tenant-bait')) {
      expect(
        scenario.probes.some((probe) => probe.expect === 'EMPTY'),
        scenario.id,
      ).toBe(true);
    }
    for (const scenario of corpus.filter((candidate) => candidate.category === 'injection')) {
      expect(scenario.expected.mustNotClaim.length, scenario.id).toBeGreaterThan(0);
    }
  });

  it('generates the large logs at run time (at least 100,000 lines) instead of committing them', () => {
    const large = corpus.filter((scenario) => scenario.category === 'large-logs');
    expect(large.length).toBeGreaterThan(0);
    for (const scenario of large) {
      const lines = scenario.generatedLogs.reduce((sum, file) => sum + file.lines, 0);
      expect(lines, scenario.id).toBeGreaterThanOrEqual(100_000);
      for (const file of scenario.generatedLogs) {
        expect(existsSync(join(scenario.dir, 'world', 'logs', file.name)), file.name).toBe(false);
      }
    }
  });
});
