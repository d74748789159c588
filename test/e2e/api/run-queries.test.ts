import type { DiagnosisResult } from '@diagnosis/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startE2eWorld } from '../../support/e2e-world.ts';
import { schemaErrors } from '../../support/json-schemas.ts';
import { e1001ScriptedConversation, httpEvent, lambdaContext } from '../../support/lambda-events.ts';

let world: Awaited<ReturnType<typeof startE2eWorld>>;
let finished: DiagnosisResult;
const conversation = e1001ScriptedConversation();

beforeAll(async () => {
  world = await startE2eWorld();
  world.server.script.push(...structuredClone(conversation.responses));
  finished = (await world.handlers.diagnose(
    { runId: 'queried-run', sessionId: 's', enterpriseId: 'E1001', query: conversation.query },
    lambdaContext(60_000),
  )) as DiagnosisResult;
});
afterAll(async () => {
  await world?.cleanup();
});

const get = async (handler: 'getRun' | 'getRunAudit' | 'getRunReasoning', options: Parameters<typeof httpEvent>[0]) => {
  const response = (await world.handlers[handler](httpEvent({ method: 'GET', ...options }), lambdaContext(5_000))) as {
    statusCode: number;
    body: string;
  };
  return { status: response.statusCode, body: JSON.parse(response.body) };
};

describe('the read and audit functions on a finished run', () => {
  it('reads the run’s status and published result, without reasoning', async () => {
    const { status, body } = await get('getRun', {
      path: '/runs/queried-run',
      pathParameters: { runId: 'queried-run' },
    });
    expect(finished.status).toBe('PUBLISHED');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      runId: 'queried-run',
      status: 'PUBLISHED',
      enterpriseId: 'E1001',
      report: finished.report,
    });
    expect(body.conclusion).toContain('连接池');
    // The committed JSON Schema of the run resource (docs/schemas/run-resource.schema.json) holds for the real answer.
    expect(schemaErrors('run-resource', body)).toEqual([]);
    expect(JSON.stringify(body)).not.toContain(conversation.responses[0]?.choices[0]?.message.reasoning_content);
  });

  it('lists the audit trail without reasoning, and the reasoning only on its own route', async () => {
    const plain = await get('getRunAudit', {
      path: '/runs/queried-run/audit',
      pathParameters: { runId: 'queried-run' },
    });
    const entities = (plain.body.records as { entity: string }[]).map((record) => record.entity);
    expect(entities.filter((entity) => entity === 'agent_step')).toHaveLength(5);
    expect(entities.filter((entity) => entity === 'tool_invocation')).toHaveLength(4);
    expect(entities).not.toContain('agent_reasoning_audit');
    expect(JSON.stringify(plain.body)).not.toContain(conversation.responses[0]?.choices[0]?.message.reasoning_content);
    expect(JSON.stringify(plain.body)).not.toContain('"thought"');

    const full = await get('getRunReasoning', {
      path: '/runs/queried-run/reasoning',
      pathParameters: { runId: 'queried-run' },
    });
    expect(full.status).toBe(200);
    const reasoning = (full.body.records as { entity: string; reasoningContent?: string }[]).filter(
      (record) => record.entity === 'agent_reasoning_audit',
    );
    expect(full.body.records).toHaveLength(5);
    expect(reasoning).toHaveLength(5);
    expect(reasoning[0]?.reasoningContent).toBe(conversation.responses[0]?.choices[0]?.message.reasoning_content);
  });

  it('pages the audit trail with a cursor', async () => {
    const first = await get('getRunAudit', {
      pathParameters: { runId: 'queried-run' },
      queryStringParameters: { limit: '4' },
    });
    expect(first.body.records).toHaveLength(4);
    expect(typeof first.body.cursor).toBe('string');
    const second = await get('getRunAudit', {
      pathParameters: { runId: 'queried-run' },
      queryStringParameters: { limit: '4', cursor: first.body.cursor },
    });
    expect(second.status).toBe(200);
    expect(second.body.records.length).toBeGreaterThan(0);
  });

  it.each([
    ['getRun', { pathParameters: { runId: 'queried-run' }, iam: false }, 403, 'FORBIDDEN'],
    ['getRunAudit', { pathParameters: { runId: 'queried-run' }, iam: false }, 403, 'FORBIDDEN'],
    ['getRunReasoning', { pathParameters: { runId: 'queried-run' }, iam: false }, 403, 'FORBIDDEN'],
    ['getRunReasoning', { pathParameters: { runId: 'no-such-run' } }, 404, 'RUN_NOT_FOUND'],
    ['getRun', { pathParameters: { runId: 'no-such-run' } }, 404, 'RUN_NOT_FOUND'],
    ['getRunAudit', { pathParameters: { runId: 'no-such-run' } }, 404, 'RUN_NOT_FOUND'],
    ['getRun', { pathParameters: { runId: 'RUN#x' } }, 400, 'INVALID_RUN_ID'],
    [
      'getRunAudit',
      { pathParameters: { runId: 'queried-run' }, queryStringParameters: { include: 'reasoning' } },
      400,
      'INVALID_QUERY_PARAMETER',
    ],
    [
      'getRunReasoning',
      { pathParameters: { runId: 'queried-run' }, queryStringParameters: { cursor: 'forged' } },
      400,
      'INVALID_CURSOR',
    ],
    ...(['1000', '101', '0', '-1', '1.5', 'abc', '', ' 5', '0x10', '1e2', '05'] as const).map(
      (limit) =>
        [
          'getRunAudit',
          { pathParameters: { runId: 'queried-run' }, queryStringParameters: { limit } },
          400,
          'INVALID_LIMIT',
        ] as const,
    ),
    [
      'getRunAudit',
      { pathParameters: { runId: 'queried-run' }, queryStringParameters: { cursor: 'x'.repeat(2_049) } },
      400,
      'INVALID_CURSOR',
    ],
    ['getRun', { pathParameters: { runId: 'r'.repeat(129) } }, 400, 'INVALID_RUN_ID'],
    ['getRun', { pathParameters: { runId: 'run\ud800' } }, 400, 'INVALID_RUN_ID'],
    [
      'getRunAudit',
      { pathParameters: { runId: 'queried-run' }, queryStringParameters: { cursor: 'forged' } },
      400,
      'INVALID_CURSOR',
    ],
  ] as const)('%s answers %j with %i %s', async (handler, options, status, code) => {
    const response = await get(handler, options);
    expect(response.status).toBe(status);
    expect(response.body.error.code).toBe(code);
  });
});
