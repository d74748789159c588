import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildKubernetesState, recordKind } from '../../../../packages/eval/src/cloud-opsbench/kubernetes-state.ts';

const FIXTURES = resolve(import.meta.dirname, '../../../fixtures/cloud-opsbench/benchmark');
const states = JSON.parse(readFileSync(`${FIXTURES}/trainticket/runtime/1/raw_data/k8s_states.json`, 'utf8'));
const snapshotMs = Date.parse('2031-05-06T10:20:10+08:00');

describe('buildKubernetesState', () => {
  const records = buildKubernetesState(states, { snapshotMs, zone: '+08:00', namespace: 'train-ticket' });
  const find = (start: string) => records.filter((record) => record.message.startsWith(start));

  it('writes each object of the tables as a record, failing ERROR, degraded WARN, healthy INFO', () => {
    expect(find('pod/ts-ledger-service-6d9f7c8b5d-x7k2p READY')).toEqual([
      {
        time: snapshotMs,
        timestamp: '2031-05-06T10:20:10.000+08:00',
        level: 'ERROR',
        message:
          'pod/ts-ledger-service-6d9f7c8b5d-x7k2p READY=0/1 STATUS=CrashLoopBackOff RESTARTS=3 (20s ago) AGE=2m30s',
      },
    ]);
    expect(find('pod/ts-gateway-service')[0]?.level).toBe('INFO');
    expect(find('deployment/ts-ledger-service')[0]?.level).toBe('WARN');
    expect(find('endpoints/ts-ledger-service')[0]).toMatchObject({
      level: 'WARN',
      message: 'endpoints/ts-ledger-service ENDPOINTS=<none> AGE=2m40s',
    });
    expect(find('node/worker-01')[0]?.level).toBe('INFO');
  });

  it('writes a described container’s state, last state with reason and exit code, restarts and probes', () => {
    expect(find('pod/ts-ledger-service-6d9f7c8b5d-x7k2p container')).toEqual([
      expect.objectContaining({
        level: 'ERROR',
        message:
          'pod/ts-ledger-service-6d9f7c8b5d-x7k2p container ts-ledger-service: state Waiting (CrashLoopBackOff); ' +
          'last state Terminated (Error, exit code 1, finished Tue, 06 May 2031 10:20:04 +0800); ready False; ' +
          'restarts 3; readiness tcp-socket :18080 delay=30s timeout=5s period=10s #success=1 #failure=3',
      }),
    ]);
  });

  it('writes each event once, at the snapshot less its age, Warning as WARN, with kubectl’s count', () => {
    const backOff = find('event pod/ts-ledger-service-6d9f7c8b5d-x7k2p Warning BackOff');
    expect(backOff).toHaveLength(1);
    expect(backOff[0]).toMatchObject({ level: 'WARN', time: snapshotMs - 15_000 });
    expect(backOff[0]?.message.endsWith('(x6 over 2m)')).toBe(true);
    expect(find('event pod/ts-gateway-service-5c4d8f7b9c-q2w3e Normal Pulled')[0]?.time).toBe(
      snapshotMs - 3 * 3_600_000,
    );
  });

  it('leaves configuration out, and orders the records oldest first, failing before healthy at one instant', () => {
    expect(records.some((record) => record.message.includes('ledger-db'))).toBe(false);
    const times = records.map((record) => record.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const atSnapshot = records.filter((record) => record.time === snapshotMs).map((record) => record.level);
    expect(atSnapshot.indexOf('INFO')).toBeGreaterThan(atSnapshot.lastIndexOf('ERROR'));
  });

  it('says the namespace of an object outside the case’s, and reads nothing from unknown commands', () => {
    const other = buildKubernetesState(
      {
        'kubectl get pods -n kube-system':
          'NAME      READY   STATUS    RESTARTS   AGE\ncoredns   1/1     Running   0          9d',
        'kubectl top pods -n boutique': 'NAME  CPU\nx     5m',
        'kubectl get pods -n boutique': 'not a table',
      },
      { snapshotMs, zone: 'Z', namespace: 'boutique' },
    );
    expect(other.map((record) => record.message)).toEqual([
      'pod/coredns namespace=kube-system READY=1/1 STATUS=Running RESTARTS=0 AGE=9d',
    ]);
  });
});

describe('recordKind', () => {
  it.each([
    ['pods', 'pod'],
    ['pod', 'pod'],
    ['po', 'pod'],
    ['Deployment', 'deployment'],
    ['svc', 'service'],
    ['pvc', 'persistentvolumeclaim'],
    ['sts', 'statefulset'],
    ['persistentvolumeclaim', 'persistentvolumeclaim'],
    ['configmaps', undefined],
  ])('maps %s to %s', (resource, kind) => {
    expect(recordKind(resource)).toBe(kind);
  });
});
