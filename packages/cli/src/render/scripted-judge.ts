import type { DiagnosisReport } from '@diagnosis/core';

/**
 * The judge's model id in every run the command line answers with a scripted conversation (`demo`, `demo --alarm`,
 * `trigger --scripted-model`, `serve --scripted-model`, a scripted batch). NOTE: the verdicts are hand-written, not a
 * model's: the report records this id as the judge's (`semantic_guard.model_id`), so the terminal report and the trace
 * page, even one drawn later from the stored run, mark each verdict scripted where they print it.
 */
export const SCRIPTED_JUDGE_MODEL_ID = 'scripted-judge';

/** Whether a report's SemanticGuard verdicts came from the scripted judge. */
export function hasScriptedJudge(report: DiagnosisReport | null | undefined): boolean {
  if (report === null || report === undefined) return false;
  if (report.kind !== 'DIAGNOSIS' && report.kind !== 'FALLBACK') return false;
  return report.semantic_guard?.model_id === SCRIPTED_JUDGE_MODEL_ID;
}

/** How a verdict is marked: ` (scripted)` after a scripted judge's verdict, nothing after a model's. */
export const scriptedMark = (scripted: boolean): string => (scripted ? ' (scripted)' : '');
