import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importCase, timeZoneOf, writeCaseLogs } from '../../../../packages/eval/src/cloud-opsbench/import-case.ts';
import {
  type CaseFiles,
  listCases,
  loadCaseFiles,
} from '../../../../packages/eval/src/cloud-opsbench/opsbench-dataset.ts';

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures/cloud-opsbench');
const scratch = mkdtempSync(join(tmpdir(), 'opsbench-import-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function filesOf(key: string): CaseFiles {
  const loaded = loadCaseFiles(listCases(FIXTURES, { cases: [key] })[0] as never);
  if (!loaded.ok) throw new Error(key);
  return loaded.files;
}

describe('importCase', () => {
  const result = importCase(filesOf('trainticket/runtime/1'));
  const imported = result.ok ? result.imported : undefined;

  it('takes the window from the case’s own newest time, in the zone of its prefixes', () => {
    expect(imported?.zone).toBe('+08:00');
    expect(imported?.window).toEqual({ start: '2031-05-06T10:18:00+08:00', end: '2031-05-06T10:21:00+08:00' });
  });

  it('makes a stream of each container, the previous container’s lines merged before the current one’s first', () => {
    const ledger = imported?.streams.get('ts-ledger-service') ?? [];
    expect(ledger.map((event) => event.timestamp.slice(11, 23))).toEqual([
      '10:18:40.100',
      '10:18:41.900',
      '10:20:01.100',
      '10:20:02.000',
      '10:20:03.500',
      '10:20:03.600',
      '10:20:03.600',
      '10:20:03.700',
    ]);
    // The previous container's repeat of the current one's line (10:20:03.500) is kept once.
    expect(imported?.stats.repeatedPrevious).toBe(1);
    expect(imported?.streams.has('ts-ledger-service.istio-proxy')).toBe(true);
    // A previous log kubectl could not fetch holds nothing.
    expect(imported?.stats.kubectlNotes).toBe(1);
    expect(imported?.streams.get('ts-gateway-service')?.map((event) => event.level)).toEqual([
      'ERROR',
      'INFO',
      'ERROR',
    ]);
    expect(imported?.stats.kubernetesRecords).toBeGreaterThan(0);
    expect(imported?.streams.get('kubernetes')?.length).toBe(imported?.stats.kubernetesRecords);
  });

  it('reads a restarted container’s times without a zone in the zone that places them inside its pod’s life', () => {
    // trainticket/service/1: the current container wrote nothing, its previous one's clock is UTC, the case's +08:00.
    const files = filesOf('trainticket/service/1');
    const refund = importCase(files);
    if (!refund.ok) throw new Error('import');
    expect(refund.imported.window).toEqual({ start: '2031-05-08T10:09:00+08:00', end: '2031-05-08T10:13:00+08:00' });
    expect(refund.imported.streams.get('ts-refund-service')?.map((event) => event.timestamp)).toEqual([
      '2031-05-08T02:10:05.100Z',
      '2031-05-08T02:10:07.300Z',
      '2031-05-08T02:10:08.900Z',
    ]);
    // The same lines written by a clock in the case's zone stay in it: UTC would put them after the snapshot.
    const previous = files.logs['ts-refund-service.previous'] as string;
    const local = importCase({
      ...files,
      logs: { ...files.logs, 'ts-refund-service.previous': previous.replaceAll('2031-05-08 02:', '2031-05-08 10:') },
    });
    if (!local.ok) throw new Error('import');
    expect(local.imported.streams.get('ts-refund-service')?.map((event) => event.time)).toEqual(
      ['10:10:05.100', '10:10:07.300', '10:10:08.900'].map((time) => Date.parse(`2031-05-08T${time}+08:00`)),
    );
  });

  it('places a stream without any time at the window’s start', () => {
    const boutique = importCase(filesOf('boutique/runtime/1'));
    expect(boutique.ok).toBe(true);
    if (!boutique.ok) return;
    expect(boutique.imported.zone).toBe('Z');
    const shipping = boutique.imported.streams.get('shippingservice') ?? [];
    expect(shipping.map((event) => event.timestamp)).toEqual(
      Array.from({ length: 3 }, () => boutique.imported.window.start.replace(':00Z', ':00.000Z')),
    );
  });

  it('refuses a case none of whose lines carries a time', () => {
    const files = filesOf('boutique/startup/1');
    expect(importCase({ ...files, logs: { checkoutservice: ['no time here'] } })).toEqual({
      ok: false,
      detail: 'no log line of the case carries a time',
    });
  });
});

describe('writeCaseLogs', () => {
  it('writes each stream as the local adapter’s JSON Lines, oldest first, with the enterprise, files named by index', () => {
    const result = importCase(filesOf('trainticket/runtime/2'));
    if (!result.ok) throw new Error('import');
    const dir = join(scratch, 'logs');
    const bytes = writeCaseLogs(result.imported, dir, 'OPSBENCH');
    const files = readdirSync(dir).sort();
    expect(files.every((name) => /^stream-\d{3}\.jsonl$/.test(name))).toBe(true);
    const records = files.flatMap((name) =>
      readFileSync(join(dir, name), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    );
    expect(bytes).toBe(files.reduce((sum, name) => sum + readFileSync(join(dir, name)).length, 0));
    expect(records.every((record) => record.enterprise_id === 'OPSBENCH')).toBe(true);
    const fare = records.filter((record) => record.service === 'ts-fare-service');
    expect(fare.map((record) => [record.level, record.message.split('\n')[0]])).toEqual([
      ['UNKNOWN', '+ export JAVA_OPTS=-Xmx512m'],
      ['INFO', 'The server IP list is [fare-0.fare-headless:8848]'],
      [
        'ERROR',
        '1 --- [ main] com.zaxxer.hikari.pool.HikariPool : HikariPool-1 - Exception during pool initialization.',
      ],
      ['ERROR', 'Worker failed to boot.'],
    ]);
    expect(fare[2]?.message).toContain('Caused by: java.net.ConnectException: Connection refused (Connection refused)');
  });
});

describe('timeZoneOf', () => {
  it.each([
    ['+08:00', 'Etc/GMT-8'],
    ['-05:00', 'Etc/GMT+5'],
    ['Z', 'UTC'],
    ['+00:00', 'UTC'],
    ['+05:30', 'UTC'],
  ])('runs a case in %s as %s', (zone, name) => {
    expect(timeZoneOf(zone)).toBe(name);
  });
});
