import { describe, expect, it } from 'vitest';
import type { ExpertStep } from '../../../../packages/eval/src/cloud-opsbench/golden-trajectory.ts';
import { buildReplayPlan } from '../../../../packages/eval/src/cloud-opsbench/replay-plan.ts';

const window = { start: '2031-05-06T10:18:00+08:00', end: '2031-05-06T10:21:00+08:00' };
const context = {
  caseKey: 'trainticket/runtime/1',
  window,
  streams: new Set(['ts-ledger-service', 'ts-gateway-service', 'kubernetes']),
  maxCalls: 6,
};
const step = (tool: string, args: Record<string, string> = {}): ExpertStep => ({ tool, args, output: '' });

describe('buildReplayPlan', () => {
  it('maps each expert step onto query_logs: error and recent logs of the service, resources on the Kubernetes stream', () => {
    const plan = buildReplayPlan(
      [
        [
          step('GetResources', { resource_type: 'pods', namespace: 'train-ticket' }),
          step('DescribeResource', { resource_type: 'pod', name: 'ts-ledger-service-6d9f7c8b5d-x7k2p' }),
          step('GetErrorLogs', { service_name: 'ts-ledger-service' }),
          step('GetRecentLogs', { service_name: 'ts-gateway-service' }),
        ],
      ],
      context,
    );
    const range = { start_time: window.start, end_time: window.end, limit: 20 };
    expect(plan.calls.map(({ input, step: expert, purpose }) => ({ input, expert, purpose }))).toEqual([
      {
        input: { service: 'kubernetes', ...range, keyword: 'pod/' },
        expert: 'GetResources(pods)',
        purpose: 'kubernetes',
      },
      {
        input: { service: 'kubernetes', ...range, keyword: 'pod/ts-ledger-service-6d9f7c8b5d-x7k2p' },
        expert: 'DescribeResource(pod, ts-ledger-service-6d9f7c8b5d-x7k2p)',
        purpose: 'kubernetes',
      },
      {
        input: { service: 'ts-ledger-service', ...range, level: 'ERROR' },
        expert: 'GetErrorLogs(ts-ledger-service)',
        purpose: 'errors',
      },
      {
        input: { service: 'ts-gateway-service', ...range },
        expert: 'GetRecentLogs(ts-gateway-service)',
        purpose: 'recent',
      },
    ]);
    expect(plan.calls.every((call) => /^call_00_[A-Za-z0-9]{24}$/.test(call.toolCallId))).toBe(true);
    expect(new Set(plan.calls.map((call) => call.toolCallId)).size).toBe(4);
  });

  it('counts what has no counterpart, asks a repeated step once, and stops at the tool-call budget', () => {
    const plan = buildReplayPlan(
      [
        [
          step('GetErrorLogs', { service_name: 'ts-ledger-service' }),
          step('GetAppYAML', { app_name: 'ts-ledger-service' }),
          step('CheckServiceConnectivity', { service_name: 'db', port: '3306' }),
          step('GetErrorLogs', { service_name: 'ts-missing-service' }),
          step('DescribeResource', { resource_type: 'configmaps', name: 'x' }),
        ],
        [
          step('GetErrorLogs', { service_name: 'ts-ledger-service' }),
          step('GetRecentLogs', { service_name: 'ts-ledger-service' }),
        ],
        [step('GetResources', { resource_type: 'nodes' }), step('GetResources', { resource_type: 'deployments' })],
      ],
      { ...context, maxCalls: 3 },
    );
    expect(plan.calls.map((call) => call.step)).toEqual([
      'GetErrorLogs(ts-ledger-service)',
      'GetRecentLogs(ts-ledger-service)',
      'GetResources(nodes)',
    ]);
    expect(plan.skipped).toEqual({
      GetAppYAML: 1,
      CheckServiceConnectivity: 1,
      'GetErrorLogs (no log stream)': 1,
      'DescribeResource (kind not in the stream)': 1,
    });
    expect(plan.repeated).toBe(1);
    expect(plan.overBudget).toBe(1);
  });

  it('maps a listing of the events onto the Kubernetes stream’s event records, whatever the word kubectl was given', () => {
    const plan = buildReplayPlan(
      [
        [step('GetResources', { resource_type: 'events', namespace: 'train-ticket' })],
        [step('GetResources', { resource_type: 'event' }), step('GetResources', { resource_type: 'ev' })],
      ],
      context,
    );
    expect(plan.calls.map(({ input, step: expert }) => ({ keyword: input.keyword, expert }))).toEqual([
      { keyword: 'event ', expert: 'GetResources(events)' },
    ]);
    expect(plan.repeated).toBe(2);
    expect(plan.skipped).toEqual({});
  });

  it('derives the same ids for the same case, others for another', () => {
    const paths = [[step('GetErrorLogs', { service_name: 'ts-ledger-service' })]];
    const first = buildReplayPlan(paths, context).calls[0]?.toolCallId;
    expect(buildReplayPlan(paths, context).calls[0]?.toolCallId).toBe(first);
    expect(buildReplayPlan(paths, { ...context, caseKey: 'trainticket/runtime/2' }).calls[0]?.toolCallId).not.toBe(
      first,
    );
  });
});
