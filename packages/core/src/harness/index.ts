/**
 * `@diagnosis/core/harness`: the harness's internal building blocks, exported for unit tests and benchmarks only.
 * Application code uses `runDiagnosis` from the package root.
 */

export { runLedger } from '../run/run-context.ts';
export { createBudgetMiddleware, readUsage } from './budget-middleware.ts';
export { createCollectionState } from './collection-state.ts';
export { AuditFailure, HarnessStop, ModelCallFailure } from './harness-signals.ts';
