import { createHash } from 'node:crypto';
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
          const docId = location === undefined ? `result-${index + 1}` : documentIdOf(location);
          return {
            doc_id: docId,
            title: typeof title === 'string' ? title : docId,
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

/**
 * A citable id for a Bedrock hit that does not show its source location. NOTE: the raw S3 URI or web URL would show
 * the model (and the audit trail) bucket names, folder layouts, and any credentials or tokens in a URL: only the last
 * path segment is kept, with a short hash of the whole location so two documents of the same name stay apart.
 */
function documentIdOf(location: string): string {
  const path = location.replace(/[?#].*$/s, '');
  const segment = decodeSafely(
    path
      .split('/')
      .filter((part) => part.length > 0 && !part.includes('@'))
      .at(-1) ?? '',
  );
  const name = segment.includes(':') || segment.length === 0 ? 'document' : segment.slice(0, 80);
  return `${name}~${createHash('sha256').update(location).digest('hex').slice(0, 10)}`;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
