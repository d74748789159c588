import { parseStartRequest, parseWorkflowRequest } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';

const EXECUTION = 'arn:aws:states:us-east-1:123456789012:execution:DiagnosisWorkflow:run-1';
const payload = { runId: 'run-1', sessionId: 's', enterpriseId: 'E1001', query: '订单为什么失败？' };
const newRunId = () => 'run-new';

describe('parseWorkflowRequest', () => {
  it('returns the request with its defaults and the execution it runs in', () => {
    expect(parseWorkflowRequest({ ...payload, executionArn: EXECUTION })).toEqual({
      ...payload,
      continueSession: false,
      executionArn: EXECUTION,
    });
  });

  it.each([
    ['a lower-case enterprise', { ...payload, enterpriseId: 'e1001' }],
    ['a run id with a #', { ...payload, runId: 'RUN#x' }],
    [
      'a window (the stored run’s is used)',
      { ...payload, window: { from: '2026-11-30T06:00:00Z', to: '2026-11-30T07:00:00Z' } },
    ],
    [
      'a state machine ARN as the execution',
      { ...payload, executionArn: EXECUTION.replace(':execution:', ':stateMachine:') },
    ],
  ])('refuses %s as INVALID_REQUEST without echoing the value', (_label, event) => {
    expect(() => parseWorkflowRequest(event)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', message: expect.not.stringContaining('e1001') }),
    );
  });

  it('refuses a query that is not well-formed Unicode as QUERY_INVALID', () => {
    expect(() => parseWorkflowRequest({ ...payload, query: 'bad \ud800' })).toThrow(
      expect.objectContaining({ code: 'QUERY_INVALID' }),
    );
  });
});

describe('parseStartRequest', () => {
  it('gives a request without a run id a new one', () => {
    const { runId: _, ...body } = payload;
    expect(parseStartRequest(body, newRunId)).toMatchObject({ runId: 'run-new', enterpriseId: 'E1001' });
  });

  it('keeps a caller’s incident window, normalised to UTC', () => {
    const window = { from: '2026-11-30T14:00:00+08:00', to: '2026-11-30T15:00:00+08:00' };
    expect(parseStartRequest({ ...payload, window }, newRunId).window).toEqual({
      from: '2026-11-30T06:00:00.000Z',
      to: '2026-11-30T07:00:00.000Z',
    });
  });

  it('refuses an execution ARN in the body as INVALID_REQUEST (only the workflow names one)', () => {
    expect(() => parseStartRequest({ ...payload, executionArn: EXECUTION }, newRunId)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST' }),
    );
  });
});
