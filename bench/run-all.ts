/** `npm run bench`: every benchmark of the project, one after the other. Figures go into BENCHMARKS.md. */
import { benchAsyncApi } from './async-api.ts';
import { benchAuditStore } from './audit-store.ts';
import { benchAuditWrites } from './audit-writes.ts';
import { benchDelivery } from './delivery.ts';
import { benchEvidenceAdapters } from './evidence-adapters.ts';
import { benchHarnessOverhead } from './harness-overhead.ts';
import { benchKnowledgeIndex } from './knowledge-index.ts';
import { benchLambdaBundle } from './lambda-bundle.ts';
import { benchMasking } from './masking.ts';
import { benchMaskingAccuracy } from './masking-accuracy.ts';
import { benchRequestTokens } from './request-tokens.ts';
import { benchTriggerLatency } from './trigger-latency.ts';

console.log(`node ${process.version} on ${process.platform}/${process.arch}`);
await benchHarnessOverhead();
await benchRequestTokens();
await benchEvidenceAdapters();
await benchKnowledgeIndex();
await benchAuditStore();
await benchAuditWrites();
await benchAsyncApi();
await benchMasking();
benchMaskingAccuracy();
await benchTriggerLatency();
await benchLambdaBundle();
await benchDelivery();
