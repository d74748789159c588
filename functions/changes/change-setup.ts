import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type ChangeSettings, parseChangeSettings } from '@diagnosis/core/config';
import { createDynamoChangeStore, createDynamoClient } from '@diagnosis/core/store';
import { coldStart } from '../lambda/cold-start.ts';
import { readLinkedEnvironment, readLinkedSecret } from '../lambda/linked-environment.ts';
import type { ChangeEventDeps } from './change-event-handler.ts';
import { parseChangeSecrets } from './change-secrets.ts';
import type { ChangeWebhookDeps } from './change-webhook-handler.ts';

/**
 * The change functions' dependencies from their settings: the sources, the table's change store and the clock; the
 * webhook's also the sources' secrets, each read by its name (`read`: the linked SST secret deployed, the environment
 * locally). NOTE: a bad secret fails the cold start naming it, never its value.
 */
export function buildChangeDeps(
  settings: ChangeSettings,
  read: (name: string) => string | undefined,
  now: () => number = Date.now,
  dynamo: DynamoDBClient = createDynamoClient(settings, process.env),
): ChangeWebhookDeps & ChangeEventDeps {
  return {
    sources: settings.CHANGE_SOURCES,
    secrets: parseChangeSecrets(settings.CHANGE_SOURCES, read),
    store: createDynamoChangeStore({
      client: dynamo,
      tableName: settings.DIAGNOSIS_TABLE_NAME,
      retentionDays: settings.CHANGE_RETENTION_DAYS,
    }),
    now,
  };
}

/** The cold start of a change function: its settings (SST's linked resources merged in) and dependencies. */
export function loadChanges(): Promise<ChangeWebhookDeps & ChangeEventDeps> {
  return coldStart(() => buildChangeDeps(parseChangeSettings(readLinkedEnvironment()), readLinkedSecret));
}
