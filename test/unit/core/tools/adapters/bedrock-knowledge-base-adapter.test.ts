// aws-sdk-client-mock: Bedrock Knowledge Bases have no local engine.
import { BedrockAgentRuntimeClient, RetrieveCommand } from '@aws-sdk/client-bedrock-agent-runtime';
import { createBedrockKnowledgeBaseAdapter } from '@diagnosis/core/adapters';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { toolCall } from '../../../../support/tool-call.ts';

const bedrock = mockClient(BedrockAgentRuntimeClient);
const adapter = createBedrockKnowledgeBaseAdapter({
  client: new BedrockAgentRuntimeClient({ region: 'us-east-1' }),
  knowledgeBaseId: 'KB12345678',
});

beforeEach(() => bedrock.reset());

describe('createBedrockKnowledgeBaseAdapter', () => {
  it('retrieves with numberOfResults and a filter on the run’s tenant and the service', async () => {
    bedrock.on(RetrieveCommand).resolves({
      retrievalResults: [
        {
          content: { text: `连接池耗尽时，${'很长的内容'.repeat(200)}` },
          location: { type: 'S3', s3Location: { uri: 's3://kb/runbooks/payment-gateway-db-pool.md' } },
          metadata: { title: '支付网关数据库连接池耗尽排查手册', service: 'payment-gateway', enterprise: '*' },
          score: 0.81234,
        },
      ],
    });

    const result = await adapter.execute(
      toolCall('lookup_knowledge', { query: '连接池耗尽 E2002', service: 'payment-gateway', top_k: 4 }),
    );

    expect(bedrock.commandCalls(RetrieveCommand)[0]?.args[0].input).toEqual({
      knowledgeBaseId: 'KB12345678',
      retrievalQuery: { text: '连接池耗尽 E2002' },
      retrievalConfiguration: {
        vectorSearchConfiguration: {
          numberOfResults: 4,
          filter: {
            andAll: [
              { in: { key: 'enterprise', value: ['E1001', '*'] } },
              { equals: { key: 'service', value: 'payment-gateway' } },
            ],
          },
        },
      },
    });
    expect(result.status).toBe('OK');
    const hit = result.status === 'OK' ? result.data.hits[0] : undefined;
    expect(hit).toMatchObject({
      // The last path segment and a hash of the location: never the bucket or folders.
      doc_id: 'payment-gateway-db-pool.md~efc71f6c7c',
      title: '支付网关数据库连接池耗尽排查手册',
      score: 0.812,
      service: 'payment-gateway',
    });
    expect(hit?.snippet.length).toBe(600);
  });

  it('filters on the tenant alone when no service is given, with the default number of results', async () => {
    bedrock.on(RetrieveCommand).resolves({ retrievalResults: [] });
    const result = await adapter.execute(toolCall('lookup_knowledge', { query: '回滚' }, { enterpriseId: 'E2002' }));
    expect(bedrock.commandCalls(RetrieveCommand)[0]?.args[0].input.retrievalConfiguration).toEqual({
      vectorSearchConfiguration: { numberOfResults: 3, filter: { in: { key: 'enterprise', value: ['E2002', '*'] } } },
    });
    expect(result).toEqual({ status: 'EMPTY' });
  });

  it.each([
    ['ThrottlingException', 429, 'THROTTLED'],
    ['AccessDeniedException', 403, 'ACCESS_DENIED'],
    ['ResourceNotFoundException', 404, 'NOT_CONFIGURED'],
    ['ValidationException', 400, 'INVALID_QUERY'],
    ['ServiceQuotaExceededException', 400, 'THROTTLED'],
    ['DependencyFailedException', 424, 'UNAVAILABLE'],
    ['InternalServerException', 500, 'UNAVAILABLE'],
  ])('maps %s to %s without the AWS message', async (name, status, code) => {
    bedrock.on(RetrieveCommand).rejects(
      Object.assign(new Error('arn:aws:bedrock:us-east-1:123456789012:knowledge-base/KB'), {
        name,
        $metadata: { httpStatusCode: status },
      }),
    );
    const result = await adapter.execute(toolCall('lookup_knowledge', { query: 'q' }));
    expect(result).toMatchObject({ status: 'ERROR', code });
    expect(JSON.stringify(result)).not.toContain('123456789012');
    expect(bedrock.calls()).toHaveLength(1);
  });

  it('answers TIMEOUT when the call is aborted', async () => {
    const controller = new AbortController();
    bedrock.on(RetrieveCommand).callsFake(async () => {
      controller.abort();
      throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    });
    expect(
      await adapter.execute(toolCall('lookup_knowledge', { query: 'q' }, { signal: controller.signal })),
    ).toMatchObject({
      code: 'TIMEOUT',
    });
  });
});
