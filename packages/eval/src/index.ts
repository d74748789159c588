export { loadCapturedAudit } from './capture-audit.ts';
export { type CaptureOutcome, type CaptureRequest, capturedScenarioId, captureRun } from './capture-cli.ts';
export {
  buildCapturedScenario,
  type CapturedScenario,
  CaptureError,
  keywordsOf,
} from './capture-run.ts';
export { createCaptureSource } from './capture-source.ts';
export { EVAL_HELP, type EvalIo, evalMain } from './cli.ts';
export { opsbenchMain } from './cloud-opsbench/opsbench-cli.ts';
export {
  compareOpsbenchReports,
  isOpsbenchReport,
  parseOpsbenchReport,
  renderOpsbenchComparison,
} from './cloud-opsbench/opsbench-compare.ts';
export {
  type Comparison,
  compareReports,
  NO_VERDICT_STATES,
  PROCESS_CHANGE_FIGURES,
  parseComparableReport,
  parseScorecardText,
  renderComparison,
} from './compare.ts';
export { DEFAULT_PRICE, type Price, parsePrice, priceOf } from './price.ts';
export { createRecordedEvidence, type RecordedWorld } from './recorded-world.ts';
export { type CapturedRow, capturedRow } from './regression.ts';
export type { EvalOptions, EvalReport } from './run-eval.ts';
export { runEval } from './run-eval.ts';
export type { ScenarioRun } from './run-scenario.ts';
export { CATEGORIES, loadCorpus, loadScenario, type Scenario, ScenarioError, VERDICTS } from './scenario.ts';
export {
  observeResult,
  type RunObservation,
  revealedObservation,
  type Score,
  scoreRun,
  VERDICT_POINTS,
} from './score.ts';
export { summarize } from './summary.ts';
