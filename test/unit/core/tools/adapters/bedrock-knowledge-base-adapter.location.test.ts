/**
 * What the model sees from the Bedrock knowledge base: `doc_id` is the document's raw source location —
 * the S3 URI (bucket and key: internal resource names, tenant folder layout) or the web URL verbatim, userinfo
 * credentials and query tokens included — and it passes the projection (200 characters) into the observation, the
 * audit `result` and `GET /runs/{id}/audit`. The local adapter uses the file's stem instead.
 */
import { createBedrockKnowledgeBaseAdapter } from '@diagnosis/core/adapters';
import { describe, expect, it } from 'vitest';
import { projectEvidence } from '../../../../../packages/core/src/tools/evidence-projection.ts';

const client = {
  async send() {
    return {
      retrievalResults: [
        {
          content: { text: '支付网关连接池耗尽时……' },
          score: 0.9,
          metadata: { enterprise: 'E1001', title: '连接池排障' },
          location: { type: 'S3', s3Location: { uri: 's3://acme-prod-kb-private/tenants/E1001/pool.md' } },
        },
        {
          content: { text: 'wiki page' },
          score: 0.8,
          metadata: { enterprise: '*' },
          location: { type: 'WEB', webLocation: { url: 'https://svc:Hunter2@wiki.internal/page?token=abc123' } },
        },
      ],
    };
  },
};

describe('Bedrock hits as the model sees them', () => {
  it('carry no bucket, URL credentials or tokens of the source location', async () => {
    // biome-ignore lint/suspicious/noExplicitAny: a fake client
    const adapter = createBedrockKnowledgeBaseAdapter({ client: client as any, knowledgeBaseId: 'KB1' });
    const result = await adapter.execute({
      runId: 'r',
      sessionId: 's',
      enterpriseId: 'E1001',
      toolCallId: 'c',
      toolName: 'lookup_knowledge',
      input: { query: '连接池' },
      signal: new AbortController().signal,
    });
    expect(result.status).toBe('OK');
    const seen = JSON.stringify(projectEvidence('lookup_knowledge', (result as { data: unknown }).data));
    expect(seen).not.toContain('Hunter2');
    expect(seen).not.toContain('token=abc123');
    expect(seen).not.toContain('acme-prod-kb-private');
  });
});
