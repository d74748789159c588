import { describe, expect, it } from 'vitest';
import {
  type LossPlace,
  measureEvidenceRecall,
  type ServiceEvidence,
} from '../../../../packages/eval/src/cloud-opsbench/evidence-recall.ts';

const startMs = Date.parse('2031-05-06T10:00:00Z');
const endMs = Date.parse('2031-05-06T11:00:00Z');
const inside = startMs + 60_000;
const mask = (text: string) => text.replace(/\d+\.\d+\.\d+\.\d+/g, '<ipv4:k3f2a>');

function evidence(overrides: Partial<ServiceEvidence>): ServiceEvidence {
  return {
    expert: [],
    records: [],
    calls: [{ startMs, endMs, level: 'ERROR', returned: [], shown: [] }],
    ...overrides,
  };
}

function place(message: string, service: ServiceEvidence): LossPlace[] {
  const lost: LossPlace[] = [];
  measureEvidenceRecall(new Map([['s', { ...service, expert: [message] }]]), 'x', mask, (_m, where) =>
    lost.push(where),
  );
  return lost;
}

describe('measureEvidenceRecall', () => {
  it('counts a message found when its masked form is inside a message the agent was shown', () => {
    const denied = "Access denied for user 'ledger'@'10.9.8.7' (using password: YES)";
    const recall = measureEvidenceRecall(
      new Map([
        [
          's',
          evidence({
            expert: [denied, 'HikariPool-1 - pool failed'],
            calls: [
              { startMs, endMs, level: 'ERROR', returned: [], shown: [`java.sql.SQLException: ${mask(denied)}`] },
            ],
          }),
        ],
      ]),
      'mysql_invalid_credentials',
      mask,
    );
    expect(recall.messages).toEqual({ expert: 2, found: 1 });
    expect(recall.signatures).toEqual({ expert: 1, found: 1 });
  });

  it('has no signature for a root cause without one', () => {
    const recall = measureEvidenceRecall(
      new Map([['s', evidence({ expert: ['Access denied for user x'] })]]),
      'oom_killed',
      mask,
    );
    expect(recall.signatures).toEqual({ expert: 0, found: 0 });
  });

  it('puts a lost message down to the first place it was lost', () => {
    const message = 'Too many connections';
    const record = (time: number, level = 'ERROR') => ({ time, level, message: `x ${message}` });
    expect(place(message, evidence({ records: [] }))).toEqual(['parser']);
    expect(place(message, evidence({ records: [record(inside)], calls: [] }))).toEqual(['budget']);
    expect(place(message, evidence({ records: [record(endMs + 1)] }))).toEqual(['window']);
    expect(place(message, evidence({ records: [record(inside, 'WARN')] }))).toEqual(['level']);
    expect(place(message, evidence({ records: [record(inside)] }))).toEqual(['limit']);
    // Returned, but the observation kept fewer rows (the 8 KiB cut) or cut the message.
    const returned = (line: string, shown: string[]) =>
      evidence({
        records: [record(inside)],
        calls: [{ startMs, endMs, level: 'ERROR', returned: ['other', line], shown }],
      });
    expect(place(message, returned(`x ${message}`, ['other']))).toEqual(['cut']);
    expect(place(message, returned(`${'y'.repeat(2_000)} ${message}`, ['other', 'y'.repeat(2_000)]))).toEqual(['cut']);
    // Inside what was shown, yet its masked form is not there.
    expect(place('from 10.0.0.1', returned('from 10.0.0.1', ['other', 'from 10.0.0.1']))).toEqual(['parser']);
    const shownRaw = evidence({
      records: [{ time: inside, level: 'ERROR', message: 'from 10.0.0.1' }],
      calls: [{ startMs, endMs, level: 'ERROR', returned: ['from 10.0.0.1'], shown: ['from 10.0.0.1'] }],
    });
    expect(place('from 10.0.0.1', shownRaw)).toEqual(['masking']);
  });
});
