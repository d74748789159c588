import { describe, expect, it } from 'vitest';
import {
  ageSeconds,
  describedConditions,
  describedContainers,
  describedEvents,
  describedField,
  parseTable,
} from '../../../../packages/eval/src/cloud-opsbench/kubectl-text.ts';

describe('parseTable', () => {
  it('slices each row at its header words, keeping values with spaces and empty cells', () => {
    const text = [
      'NAME                 READY   STATUS             RESTARTS      AGE',
      'ts-ledger-service-x   0/1     CrashLoopBackOff   3 (20s ago)   2m30s',
      '',
    ].join('\n');
    expect(parseTable(text)).toEqual([
      { NAME: 'ts-ledger-service-x', READY: '0/1', STATUS: 'CrashLoopBackOff', RESTARTS: '3 (20s ago)', AGE: '2m30s' },
    ]);
    const endpoints =
      'NAME       ENDPOINTS         AGE\nledger                       2m\ngateway    10.0.0.5:80       2d';
    expect(parseTable(endpoints)).toEqual([
      { NAME: 'ledger', ENDPOINTS: '', AGE: '2m' },
      { NAME: 'gateway', ENDPOINTS: '10.0.0.5:80', AGE: '2d' },
    ]);
    expect(parseTable('LAST SEEN   TYPE\n15s         Warning')).toEqual([{ 'LAST SEEN': '15s', TYPE: 'Warning' }]);
  });

  it('reads nothing from text that is not a table', () => {
    expect(parseTable('')).toEqual([]);
    expect(parseTable('No resources found in boutique namespace.')).toEqual([]);
  });
});

describe('ageSeconds', () => {
  it.each([
    ['27s', 27],
    ['4m57s', 297],
    ['2d3h', 183_600],
    ['60m', 3_600],
    ['<unknown>', undefined],
    ['', undefined],
    ['5x', undefined],
  ])('reads %s as %s', (age, seconds) => {
    expect(ageSeconds(age)).toBe(seconds);
  });
});

describe('describedEvents', () => {
  it('reads the Events table with its count note, and none for <none>', () => {
    const text = [
      'Name: pod-a',
      'Events:',
      '  Type     Reason     Age                From      Message',
      '  ----     ------     ----               ----      -------',
      '  Warning  BackOff    15s (x6 over 2m)   kubelet   Back-off restarting failed container',
      '  Normal   Scheduled  2m30s              default   Successfully assigned',
    ].join('\n');
    expect(describedEvents(text)).toEqual([
      {
        type: 'Warning',
        reason: 'BackOff',
        ageSeconds: 15,
        repeat: 'x6 over 2m',
        message: 'Back-off restarting failed container',
      },
      { type: 'Normal', reason: 'Scheduled', ageSeconds: 150, repeat: undefined, message: 'Successfully assigned' },
    ]);
    expect(describedEvents('Name: svc\nEvents:                   <none>\n')).toEqual([]);
    expect(describedEvents('Name: svc')).toEqual([]);
  });
});

describe('describe fields', () => {
  const pod = [
    'Name:             ledger-x',
    'Init Containers:',
    '  init-db:',
    '    State:          Terminated',
    '      Reason:       Completed',
    'Containers:',
    '  ledger:',
    '    State:          Waiting',
    '      Reason:       CrashLoopBackOff',
    '    Last State:     Terminated',
    '      Reason:       OOMKilled',
    '      Exit Code:    137',
    '    Ready:          False',
    '    Restart Count:  3',
    'Conditions:',
    '  Type              Status',
    '  Ready             False',
    '  PodScheduled      True',
    'Events:            <none>',
  ].join('\n');

  it('reads each container’s fields, details under their field', () => {
    const [init, main] = describedContainers(pod);
    expect(init?.init).toBe(true);
    expect(init?.fields.get('State.Reason')).toBe('Completed');
    expect(main?.name).toBe('ledger');
    expect(Object.fromEntries(main?.fields ?? [])).toEqual({
      State: 'Waiting',
      'State.Reason': 'CrashLoopBackOff',
      'Last State': 'Terminated',
      'Last State.Reason': 'OOMKilled',
      'Last State.Exit Code': '137',
      Ready: 'False',
      'Restart Count': '3',
    });
  });

  it('reads a top-level field and the Conditions table', () => {
    expect(describedField(pod, 'Name')).toBe('ledger-x');
    expect(describedField(pod, 'Selector')).toBeUndefined();
    expect(describedConditions(pod)).toEqual([
      { type: 'Ready', status: 'False', reason: '' },
      { type: 'PodScheduled', status: 'True', reason: '' },
    ]);
  });
});
