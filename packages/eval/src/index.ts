export { EVAL_HELP, type EvalIo, evalMain } from './cli.ts';
export { DEFAULT_PRICE, type Price, parsePrice, priceOf } from './price.ts';
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
