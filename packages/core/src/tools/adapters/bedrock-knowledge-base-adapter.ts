import {
  type BedrockAgentRuntimeClient,
  type RetrievalFilter,
  RetrieveCommand,
} from '@aws-sdk/client-bedrock-agent-runtime';
import type {
  AdapterResult,
  EvidenceAdapter,
  KnowledgeData,
  KnowledgeHit,
  KnowledgeInput,
  ToolCallRequest,
} from '../evidence-adapter.ts';
import { awsError } from './aws-error.ts';

export interface BedrockKnowledgeBaseAdapterOptions {
  client: BedrockAgentRuntimeClient;
  knowledgeBaseId: string;
  /** Metadata key that carries the tenant of a document. */
  enterpriseKey?: string;
  /** Value of `enterpriseKey` on documents shared by every tenant. */
  sharedEnterpriseValue?: string;
  serviceKey?: string;
  titleKey?: string;
  defaultTopK?: number;
}

/**
 * `lookup_knowledge` on an Amazon Bedrock knowledge base: `Retrieve` with `numberOfResults` and a metadata filter that
 * always restricts to the run's tenant (or shared documents), and to the service when one is given.
 */
export function createBedrockKnowledgeBaseAdapter(
  options: BedrockKnowledgeBaseAdapterOptions,
): EvidenceAdapter<KnowledgeInput, KnowledgeData> {
  const enterpriseKey = options.enterpriseKey ?? 'enterprise';
  const sharedValue = options.sharedEnterpriseValue ?? '*';
  const serviceKey = options.serviceKey ?? 'service';
  const titleKey = options.titleKey ?? 'title';

  return {
    async execute(call: ToolCallRequest<KnowledgeInput>): Promise<AdapterResult<KnowledgeData>> {
      const tenant: RetrievalFilter = { in: { key: enterpriseKey, value: [call.enterpriseId, sharedValue] } };
      const filter: RetrievalFilter =
        call.input.service === undefined
          ? tenant
          : { andAll: [tenant, { equals: { key: serviceKey, value: call.input.service } }] };
      try {
        const response = await options.client.send(
          new RetrieveCommand({
            knowledgeBaseId: options.knowledgeBaseId,
            retrievalQuery: { text: call.input.query },
            retrievalConfiguration: {
              vectorSearchConfiguration: {
                numberOfResults: Math.min(5, Math.max(1, call.input.top_k ?? options.defaultTopK ?? 3)),
                filter,
              },
            },
          }),
          { abortSignal: call.signal },
        );
        const hits: KnowledgeHit[] = (response.retrievalResults ?? []).slice(0, 5).map((result, index) => {
          const metadata = result.metadata ?? {};
          const title = metadata[titleKey];
          const service = metadata[serviceKey];
          const location = result.location?.s3Location?.uri ?? result.location?.webLocation?.url;
          return {
            doc_id: location ?? `result-${index + 1}`,
            title: typeof title === 'string' ? title : (location?.split('/').at(-1) ?? `result ${index + 1}`),
            snippet: (result.content?.text ?? '').slice(0, 600),
            score: typeof result.score === 'number' ? Math.round(result.score * 1_000) / 1_000 : 0,
            ...(typeof service === 'string' ? { service } : {}),
          };
        });
        return hits.length === 0 ? { status: 'EMPTY' } : { status: 'OK', data: { hits } };
      } catch (error) {
        if (call.signal.aborted) return { status: 'ERROR', code: 'TIMEOUT', detail: 'aborted by the harness' };
        return awsError(error, 'bedrock');
      }
    },
  };
}
