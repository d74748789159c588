/** `GET /runs/{runId}/audit` on the IAM-only InternalApi: steps and tool invocations; reasoning only when asked. */

import { parseStoreSettings } from '@diagnosis/core/config';
import { createDynamoAuditStore } from '@diagnosis/core/store';
import middy from '@middy/core';
import { createDynamoClient } from './runtime/dependencies.ts';
import type { HttpApiEvent } from './runtime/http.ts';
import { readLinkedEnvironment } from './runtime/linked-environment.ts';
import { createGetRunAuditHandler } from './runtime/run-queries.ts';

const settings = parseStoreSettings(readLinkedEnvironment());
const store = createDynamoAuditStore({
  client: createDynamoClient(settings),
  tableName: settings.DIAGNOSIS_TABLE_NAME,
});

export const handler = middy<HttpApiEvent>().handler(createGetRunAuditHandler(store));
