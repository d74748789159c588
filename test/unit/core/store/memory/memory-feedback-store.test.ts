import { createMemoryFeedbackStore } from '@diagnosis/core/store';
import { describeFeedbackStoreContract } from '../../../../contract/feedback-store-contract.ts';

describeFeedbackStoreContract('in-memory fake', async () => {
  const feedback = createMemoryFeedbackStore();
  return {
    feedback,
    rawItems: async (runId) => [...feedback.items.values()].filter((item) => item.pk === `FEEDBACK#${runId}`),
    cleanup: async () => undefined,
  };
});
