import { describe, expect, it } from 'vitest';
import { age, attachIncidents, type RunSummary, renderRuns } from '../../../../packages/cli/src/commands/runs.ts';

const run = {
  runId: '01M8PSKJFGGZ4K1RNDYAZP0NF8',
  status: 'FALLBACK',
  stopReason: 'TOOL_CALL_BUDGET',
  errorCode: null,
  totalTokens: 38_230,
  createdAt: '2026-11-30T10:00:00.000Z',
  enterpriseId: 'E1001',
  sessionId: 'demo',
  query: 'E1001 的订单从 14:05 开始大量失败，为什么？ 还有很多很多很多很多很多很多的文字',
  process: null,
};

describe('renderRuns', () => {
  it('shows id, status, stop reason, tokens, calls, age, enterprise, session and the query cut short', () => {
    const text = renderRuns([run], Date.parse('2026-11-30T10:05:30.000Z'));
    const [header, line] = text.trimEnd().split('\n');
    expect(header).toMatch(/^RUN +STATUS +STOP \/ CODE +TOKENS +CALLS +AGE +ENTERPRISE +SESSION +QUERY$/);
    expect(line).toMatch(
      /^01M8PSKJFGGZ4K1RNDYAZP0NF8 {2}FALLBACK {2}TOOL_CALL_BUDGET {2}38,230 {2}— +5 min {2}E1001 +demo +E1001 .{25}…$/,
    );
  });

  it('shows the process scorecard as executed, refused and redundant calls, and a run that used no tool', () => {
    const card = { version: 1, answeredWithoutTools: true, toolCalls: { executed: 0, refused: 2, redundant: 1 } };
    const text = renderRuns([{ ...run, process: card as never }], Date.parse('2026-11-30T10:05:30.000Z'));
    expect(text.split('\n')[1]).toContain('38,230  0x 2ref 1dup NO-TOOLS  5 min');
  });

  it('never prints a terminal escape stored in the table', () => {
    const text = renderRuns([{ ...run, query: 'a\u001b]0;owned\u0007b', sessionId: 's\u001b[2J' }], Date.now());
    expect(text).not.toMatch(/\p{Cc}(?<!\n)/u);
  });

  it('says a filter matched nothing, naming it, rather than that there are no runs yet', () => {
    expect(renderRuns([], 0, { enterpriseId: 'E9999' })).toBe(
      'no run matches --enterprise E9999: diagnosis runs without it lists every run\n',
    );
    expect(renderRuns([], 0, { enterpriseId: 'E1001', sessionId: 'nobody' })).toBe(
      'no run matches --enterprise E1001 --session nobody: diagnosis runs without them lists every run\n',
    );
  });

  it('says there are no runs yet', () => {
    expect(renderRuns([], 0)).toBe('no runs yet: try npm run demo\n');
  });
});

describe('age', () => {
  it.each([
    [12_000, '12 s'],
    [5 * 60_000, '5 min'],
    [3 * 3_600_000, '3 h'],
    [2 * 86_400_000, '2 d'],
    [-1, '—'],
  ])('reads %i ms as %s', (ms, text) => {
    expect(age(ms)).toBe(text);
  });
});

describe('renderRuns with deliveries', () => {
  it('adds a DELIVERY column when a run had destinations, summarising delivered and dead-lettered ones', () => {
    const delivery = [
      { destinationId: 'oncall', status: 'DELIVERED', attempts: 1, lastError: null },
      { destinationId: 'itsm', status: 'DEAD_LETTERED', attempts: 5, lastError: 'HTTP_500' },
    ];
    const text = renderRuns(
      [
        { ...run, delivery },
        { ...run, runId: 'other' },
      ],
      Date.parse('2026-11-30T10:05:30.000Z'),
    );
    const [header, first, second] = text.trimEnd().split('\n');
    expect(header).toMatch(/ SESSION +DELIVERY +QUERY$/);
    expect(first).toContain('  1/2 delivered, 1 DEAD_LETTERED  ');
    expect(second).toMatch(/ demo +— +E1001 /);
  });
});

describe('attachIncidents', () => {
  it('adds an INCIDENT column for triggered runs: the source, the events recorded on the run and what the last said', async () => {
    const runs: RunSummary[] = [
      { ...run, runId: 'run-am', incident: { source: 'alertmanager', events: 0, lastSaid: null } },
      { ...run, runId: 'run-cw', incident: { source: 'cloudwatch', events: 0, lastSaid: null } },
      { ...run, runId: 'run-caller' },
    ];
    const asked: string[] = [];
    await attachIncidents(runs, {
      listIncidentEvents: async (runId) => {
        asked.push(runId);
        return runId === 'run-am' ? [{ kind: 'FIRING' }, { kind: 'FIRING' }, { kind: 'RESOLVED' }] : [];
      },
    });
    // The caller's run is never read.
    expect(asked).toEqual(['run-am', 'run-cw']);
    const [header, am, cw, caller] = renderRuns(runs, Date.parse('2026-11-30T10:05:30.000Z')).trimEnd().split('\n');
    expect(header).toMatch(/ SESSION +INCIDENT +QUERY$/);
    expect(am).toContain('alertmanager · 3 events · RESOLVED');
    expect(cw).toContain('cloudwatch · no later event');
    expect(caller).toMatch(/demo +— +E1001/);
  });
});
