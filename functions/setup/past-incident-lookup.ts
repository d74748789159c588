import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EvidenceAdapter, KnowledgeData, KnowledgeInput } from '@diagnosis/core';

/**
 * `lookup_knowledge` with the enterprise's past incidents ranked beside the runbooks (docs/memory.md), its code
 * loaded on the first lookup: the merge, the DynamoDB store and the item schemas are no part of Diagnose's cold start.
 * NOTE: if that code cannot be loaded, the lookup answers with the runbooks alone and says so once, like a failed read.
 */
export function withPastIncidents(
  runbooks: EvidenceAdapter<KnowledgeInput, KnowledgeData>,
  options: {
    client: DynamoDBClient;
    tableName: string;
    onRetrievalFailure?: (cause: 'TIMEOUT' | 'UNAVAILABLE', errorClass: string) => void;
  },
): EvidenceAdapter<KnowledgeInput, KnowledgeData> {
  let adapter: Promise<EvidenceAdapter<KnowledgeInput, KnowledgeData>> | undefined;
  const load = async () => {
    try {
      const { createDynamoPastIncidentKnowledge } = await import('@diagnosis/core/past-incidents');
      return createDynamoPastIncidentKnowledge({ runbooks, ...options });
    } catch (error) {
      options.onRetrievalFailure?.('UNAVAILABLE', error instanceof Error ? error.name : typeof error);
      return runbooks;
    }
  };
  return {
    execute: async (call) => {
      adapter ??= load();
      return (await adapter).execute(call);
    },
  };
}
