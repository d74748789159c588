// NOTE: over 300 lines on purpose: the corpus's format as one contract: scenario folders, what they link to, generated
// logs and scorecard pieces.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCorpus, loadScenario, parsePrice, priceOf, ScenarioError } from '@diagnosis/eval';
import { fillTemplate, generateLogFile, seededRandom } from '@diagnosis/eval/generate-logs';
import { escapeHtml, progressLine } from '@diagnosis/eval/render';
import { percentile } from '@diagnosis/eval/summary';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp-dir.ts';

const valid = {
  id: 'logs-pool',
  title: '连接池耗尽',
  category: 'logs',
  enterpriseId: 'E1001',
  now: '2026-11-30T14:30:00+08:00',
  query: 'E1001 的订单从 14:05 开始大量失败，为什么？',
  expected: { outcome: 'DIAGNOSIS', rootCause: { anyOf: [['连接池']] } },
  probes: [{ tool: 'query_logs', input: { service: 's' }, expect: 'EMPTY' }],
};

function scenarioDir(root: string, spec: Record<string, unknown>, files: Record<string, string> = {}): string {
  const dir = join(root, String(spec.id));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify(spec));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function problemsOf(load: () => unknown): string {
  try {
    load();
  } catch (error) {
    expect(error).toBeInstanceOf(ScenarioError);
    return (error as ScenarioError).problems.join('\n');
  }
  throw new Error('expected a ScenarioError');
}

describe('scenario folders', () => {
  it('loads a valid scenario with the defaults filled in', async () => {
    const root = await tempDir('eval-format-');
    const scenario = loadScenario(scenarioDir(root, valid));
    expect(scenario).toMatchObject({ id: 'logs-pool', worldDir: undefined, scripted: undefined });
    expect(scenario.expected).toMatchObject({ mustNotClaim: [], requiredEvidence: [] });
  });

  it.each([
    ['an unknown key', { ...valid, extra: 1 }, 'extra'],
    ['an id that differs from the folder', { ...valid, id: 'other' }, 'folder'],
    ['a lower-case tenant', { ...valid, enterpriseId: 'e1001' }, 'enterpriseId'],
    ['a clock without offset', { ...valid, now: '2026-11-30T14:30:00' }, 'now'],
    ['an unknown category', { ...valid, category: 'vibes' }, 'category'],
    ['a DIAGNOSIS without root cause', { ...valid, expected: { outcome: 'DIAGNOSIS' } }, 'root cause'],
    [
      'an ABSTAIN with a root cause',
      { ...valid, expected: { outcome: 'ABSTAIN', rootCause: { anyOf: [['x']] } } },
      'ABSTAIN',
    ],
    [
      'an unknown tool in a probe',
      { ...valid, probes: [{ tool: 'rm_rf', input: {}, expect: 'EMPTY' }] },
      'probes.0.tool',
    ],
    [
      'a scripted verdict without scripted.json',
      { ...valid, expected: { ...valid.expected, scripted: { verdict: 'CONFIDENTLY_WRONG', why: 'x' } } },
      'scripted.json',
    ],
  ])('refuses %s, naming the field', async (_name, spec, fragment) => {
    const root = await tempDir('eval-format-');
    const dir = scenarioDir(root, { ...spec, id: spec.id === 'other' ? 'other' : 'bad-one' });
    if (spec.id === 'other') {
      // The folder is named after the id it holds; rename the folder to make them differ.
      writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ ...spec, id: 'not-the-folder' }));
    }
    expect(problemsOf(() => loadScenario(dir))).toContain(fragment);
  });

  it('refuses a scenario.json that is not JSON or is too large, without echoing its content', async () => {
    const root = await tempDir('eval-format-');
    const dir = join(root, 'broken');
    mkdirSync(dir);
    writeFileSync(join(dir, 'scenario.json'), '{"id": "broken", SECRET-CONTENT');
    expect(problemsOf(() => loadScenario(dir))).not.toContain('SECRET');
    writeFileSync(join(dir, 'scenario.json'), ' '.repeat(300 * 1024));
    expect(problemsOf(() => loadScenario(dir))).toContain('larger than');
  });

  it('refuses a scripted.json whose responses are not chat completions', async () => {
    const root = await tempDir('eval-format-');
    const dir = scenarioDir(root, valid, { 'scripted.json': JSON.stringify({ responses: [{ hello: 1 }] }) });
    expect(problemsOf(() => loadScenario(dir))).toContain('scripted.json');
  });

  it('refuses a previous turn in scripted.json that the scenario does not have, and the reverse', async () => {
    const root = await tempDir('eval-format-');
    const response = {
      id: 'x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ message: { role: 'assistant' } }],
    };
    const dir = scenarioDir(
      root,
      { ...valid, previousTurn: { query: '上一问' } },
      {
        'scripted.json': JSON.stringify({ responses: [response] }),
      },
    );
    expect(problemsOf(() => loadScenario(dir))).toContain('previousTurn');
    const reverse = scenarioDir(
      root,
      { ...valid, id: 'reverse' },
      {
        'scripted.json': JSON.stringify({ responses: [response], previousTurn: { responses: [response] } }),
      },
    );
    expect(problemsOf(() => loadScenario(reverse))).toContain('previousTurn');
  });

  it('refuses a generated log file that would replace a committed one, or a path in its name', async () => {
    const root = await tempDir('eval-format-');
    const file = {
      name: 'order-service.jsonl',
      service: 'order-service',
      seed: 1,
      lines: 10,
      start: '2026-11-30T05:00:00Z',
      end: '2026-11-30T06:00:00Z',
      enterprises: ['E1001'],
      noise: [{ weight: 1, level: 'INFO', message: 'ok' }],
    };
    const dir = scenarioDir(root, valid, {
      'world/logs/generate.json': JSON.stringify({ files: [file] }),
      'world/logs/order-service.jsonl': '',
    });
    expect(problemsOf(() => loadScenario(dir))).toContain('already exists');
    const other = scenarioDir(
      root,
      { ...valid, id: 'second' },
      {
        'world/logs/generate.json': JSON.stringify({ files: [{ ...file, name: '../../etc/x.jsonl' }] }),
      },
    );
    expect(problemsOf(() => loadScenario(other))).toContain('name');
  });

  it('loads a corpus sorted by id, keeps --only, and refuses an id that is not there', async () => {
    const root = await tempDir('eval-format-');
    scenarioDir(root, { ...valid, id: 'b-two' });
    scenarioDir(root, { ...valid, id: 'a-one' });
    mkdirSync(join(root, 'not-a-scenario'));
    expect(loadCorpus(root).map((scenario) => scenario.id)).toEqual(['a-one', 'b-two']);
    expect(loadCorpus(root, ['b-two']).map((scenario) => scenario.id)).toEqual(['b-two']);
    expect(problemsOf(() => loadCorpus(root, ['nope']))).toContain('nope');
  });
});

describe('scenario folders and what they link to (issue 19)', () => {
  const world = {
    'world/knowledge/runbook.md': '# 手册',
    'world/mysql/catalog.json': '[]',
    'world/mysql/seed.sql': 'CREATE TABLE t (a INT);',
  };

  it.each([
    ['a file of this machine', (dir: string) => symlinkSync('/etc/hostname', join(dir, 'world/knowledge/leak.md'))],
    ['a folder outside', (dir: string) => symlinkSync('/etc', join(dir, 'world/logs'))],
    ['a sibling scenario', (dir: string) => symlinkSync(join(dir, '..'), join(dir, 'world/knowledge/up'))],
    ['nothing', (dir: string) => symlinkSync(join(dir, 'gone'), join(dir, 'world/knowledge/dangling.md'))],
    ['a system file as scripted.json', (dir: string) => symlinkSync('/etc/hostname', join(dir, 'scripted.json'))],
  ])('refuses a symbolic link to %s, in one line naming the link', async (_label, link) => {
    const root = await tempDir('eval-links-');
    const dir = scenarioDir(root, valid, world);
    link(dir);
    const problems = problemsOf(() => loadScenario(dir));
    expect(problems.split('\n')).toHaveLength(1);
    expect(problems).toMatch(
      /^(world\/(knowledge|logs)|scripted\.json)\S* is a symbolic link (that leaves the scenario folder|to nothing)$/,
    );
  });

  it('accepts a symbolic link that stays inside the scenario folder', async () => {
    const root = await tempDir('eval-links-');
    const dir = scenarioDir(root, valid, world);
    symlinkSync(join(dir, 'world/knowledge/runbook.md'), join(dir, 'world/knowledge/alias.md'));
    expect(loadScenario(dir).id).toBe('logs-pool');
  });

  it('refuses a scenario folder that is itself a link, in a corpus or on its own', async () => {
    const root = await tempDir('eval-links-');
    const elsewhere = await tempDir('eval-elsewhere-');
    const real = scenarioDir(elsewhere, valid);
    symlinkSync(real, join(root, 'logs-pool'));
    expect(problemsOf(() => loadCorpus(root))).toBe('the scenario folder is a symbolic link');
    expect(problemsOf(() => loadScenario(join(root, 'logs-pool')))).toBe('the scenario folder is a symbolic link');
  });

  it.each([
    ['USE of another database', 'CREATE TABLE t (a INT);\nUSE mysql;'],
    ['CREATE DATABASE', 'CREATE DATABASE other;'],
    ['a table of another database', 'INSERT INTO other.t VALUES (1);'],
  ])('refuses a seed.sql with %s when the scenario is loaded, before any database is touched', async (_l, sql) => {
    const root = await tempDir('eval-seed-');
    const dir = scenarioDir(root, valid, { ...world, 'world/mysql/seed.sql': sql });
    const problems = problemsOf(() => loadScenario(dir));
    expect(problems).toMatch(/^world\/mysql\/seed\.sql statement \d+: /);
    expect(problems).not.toMatch(/mysql;|other\.t/);
  });
});

describe('generated logs', () => {
  const spec = {
    name: 'gen.jsonl',
    service: 'order-service',
    seed: 42,
    lines: 5_000,
    start: '2026-11-30T05:00:00Z',
    end: '2026-11-30T07:00:00Z',
    enterprises: ['E1001', 'E2002'],
    noise: [
      { weight: 9, level: 'INFO' as const, message: 'order created id={int:1-999} t={hex:8}' },
      { weight: 1, level: 'WARN' as const, message: 'slow call latency_ms={int:800-1500}' },
    ],
    events: [
      {
        from: '2026-11-30T06:05:00Z',
        to: '2026-11-30T06:06:00Z',
        everyMs: 10_000,
        enterpriseId: 'E1001',
        level: 'ERROR' as const,
        message: 'pool exhausted waiting={int:10-60}',
        traceId: true,
      },
    ],
  };

  it('writes exactly the lines asked, sorted by time, the same bytes every time', async () => {
    const first = await tempDir('eval-gen-');
    const second = await tempDir('eval-gen-');
    expect(await generateLogFile(spec, first)).toBe(5_000);
    await generateLogFile(spec, second);
    const text = readFileSync(join(first, 'gen.jsonl'), 'utf8');
    expect(readFileSync(join(second, 'gen.jsonl'), 'utf8')).toBe(text);
    const lines = text
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, string>);
    expect(lines).toHaveLength(5_000);
    const times = lines.map((line) => Date.parse(line.timestamp as string));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const events = lines.filter((line) => line.level === 'ERROR');
    expect(events).toHaveLength(6);
    expect(events.every((line) => line.enterprise_id === 'E1001' && /^[0-9a-f]{16}$/.test(line.trace_id ?? ''))).toBe(
      true,
    );
    expect(new Set(lines.map((line) => line.enterprise_id))).toEqual(new Set(['E1001', 'E2002']));
  });

  it('gives other bytes for another seed, and never overwrites a file', async () => {
    const dir = await tempDir('eval-gen-');
    await generateLogFile(spec, dir);
    await expect(generateLogFile(spec, dir)).rejects.toThrow();
    const other = await tempDir('eval-gen-');
    await generateLogFile({ ...spec, seed: 43 }, other);
    expect(readFileSync(join(other, 'gen.jsonl'), 'utf8')).not.toBe(readFileSync(join(dir, 'gen.jsonl'), 'utf8'));
  });

  it('fills templates within their bounds and leaves malformed placeholders as written', async () => {
    const random = seededRandom(7);
    for (let index = 0; index < 200; index += 1) {
      const value = Number(fillTemplate('{int:3-5}', random));
      expect(value).toBeGreaterThanOrEqual(3);
      expect(value).toBeLessThanOrEqual(5);
    }
    expect(fillTemplate('{int:9-1} {hex:0} {hex:99} {int:a-b}', random)).toBe('{int:9-1} {hex:0} {hex:99} {int:a-b}');
    expect(fillTemplate('{hex:4}', random)).toMatch(/^[0-9a-f]{4}$/);
  });
});

describe('scorecard pieces', () => {
  it('prices input, cached input and output separately', async () => {
    const price = parsePrice('input=1,cached=0.1,output=2');
    expect(priceOf({ inputTokens: 1_000_000, cachedInputTokens: 400_000, outputTokens: 500_000 }, price)).toBeCloseTo(
      0.6 + 0.04 + 1,
    );
    expect(() => parsePrice('input=1;rm -rf')).toThrow('input=');
    expect(() => parsePrice('input=-1')).toThrow();
  });

  it('takes nearest-rank percentiles', async () => {
    expect(percentile([], 95)).toBeNull();
    expect(percentile([5, 1, 3, 2, 4], 50)).toBe(3);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95)).toBe(10);
  });

  it('escapes every character that could open markup in the page', async () => {
    expect(escapeHtml(`<img src=x onerror="alert('1')">&`)).toBe(
      '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;',
    );
  });

  it('draws a progress bar that fills with the count', async () => {
    expect(progressLine(0, 4, ['a'], 8)).toBe('[--------] 0/4  running a');
    expect(progressLine(4, 4, [], 8)).toBe('[########] 4/4');
  });
});
