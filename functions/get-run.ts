/** `GET /runs/{runId}` on the IAM-only InternalApi: a run's status and published result. */

import { parseStoreSettings } from '@diagnosis/core/config';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import middy from '@middy/core';
import { createDynamoClient } from './runtime/dependencies.ts';
import type { HttpApiEvent } from './runtime/http.ts';
import { readLinkedEnvironment } from './runtime/linked-environment.ts';
import { createGetRunHandler } from './runtime/run-queries.ts';

const settings = parseStoreSettings(readLinkedEnvironment());
const store = createDynamoAuditStore({
  client: createDynamoClient(settings),
  tableName: settings.DIAGNOSIS_TABLE_NAME,
});

export const handler = middy<HttpApiEvent>().handler(createGetRunHandler(store));
