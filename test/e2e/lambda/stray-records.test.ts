/**
 * The test run's own hygiene: a function's Powertools records reach the test that causes them, never the run's output
 * (test/support/function-logs.ts), and the guard every project runs (test/support/stray-records-guard.ts) sees an EMF
 * record or ERROR log line that got through. Fakes stand in for the console and stdout, so nothing here prints.
 */
import { describe, expect, it } from 'vitest';
import { captureFunctionLogs, isFunctionRecord } from '../../support/function-logs.ts';
import { guardAgainstStrayRecords } from '../../support/stray-records.ts';

const EMF = JSON.stringify({
  _aws: { Timestamp: 1, CloudWatchMetrics: [{ Namespace: 'Diagnosis', Dimensions: [['service']], Metrics: [] }] },
  service: 'diagnosis-agent',
  Runs: 1,
});
const logLine = (level: string, indentation?: number) =>
  JSON.stringify(
    { level, message: 'diagnosis finished', timestamp: '2026-12-03T05:00:00.000Z', service: 'diagnosis-agent' },
    null,
    indentation,
  );

/** A console and a stream that keep what they are given instead of printing it. */
function fakeOutputs() {
  const printed: string[] = [];
  const keep =
    (method: string) =>
    (...parts: unknown[]) =>
      void printed.push(`${method}: ${parts.map(String).join(' ')}`);
  const console = {
    log: keep('log'),
    info: keep('info'),
    warn: keep('warn'),
    error: keep('error'),
    debug: keep('debug'),
  };
  const stream = { write: (chunk: string) => printed.push(`stream: ${chunk}`) > 0 };
  return { printed, console, stream };
}

describe('guardAgainstStrayRecords', () => {
  it('notes every EMF record and ERROR or CRITICAL line printed through the console or a stream, and prints all', () => {
    const { printed, console, stream } = fakeOutputs();
    const seen: string[] = [];
    guardAgainstStrayRecords({ console, streams: [stream] }, seen);
    console.log(EMF);
    console.info(logLine('INFO'));
    console.error(logLine('ERROR', 4));
    stream.write(`${logLine('CRITICAL')}\n`);
    console.warn('a plain warning');
    expect(seen).toEqual([EMF, logLine('ERROR', 4), `${logLine('CRITICAL')}\n`]);
    expect(printed).toHaveLength(5);
  });

  it('wraps each output once, however often it runs', () => {
    const { printed, console, stream } = fakeOutputs();
    const seen: string[] = [];
    guardAgainstStrayRecords({ console, streams: [stream] }, seen);
    guardAgainstStrayRecords({ console, streams: [stream] }, seen);
    console.log(EMF);
    stream.write(EMF);
    expect(seen).toHaveLength(2);
    expect(printed).toHaveLength(2);
  });
});

describe('captureFunctionLogs', () => {
  it('keeps the Powertools records for the test and passes every other console call on, until restored', () => {
    const { printed, console } = fakeOutputs();
    const logs = captureFunctionLogs(console);
    console.log(EMF);
    console.info(logLine('INFO', 4));
    console.error(logLine('ERROR'));
    console.warn('a plain warning');
    console.log('{"not":"a record"}');
    expect(logs.lines).toEqual([EMF, logLine('INFO', 4), logLine('ERROR')]);
    expect(printed).toEqual(['warn: a plain warning', 'log: {"not":"a record"}']);
    logs.restore();
    console.log(EMF);
    expect(printed).toHaveLength(3);
    expect(logs.lines).toHaveLength(3);
  });

  it('takes one text per call only: a record among other arguments is the caller’s own message', () => {
    expect(isFunctionRecord([EMF])).toBe(true);
    expect(isFunctionRecord(['found', EMF])).toBe(false);
    expect(isFunctionRecord(['{ not json'])).toBe(false);
  });
});
