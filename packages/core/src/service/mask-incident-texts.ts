import { buildRunLimits, type RunLimits } from '../run/run-limits.ts';
import { truncateUtf8 } from '../run/utf8.ts';
import type { RunStore } from '../store/run-store.ts';
import { createMaskingSession, type MaskingConfig } from '../tools/masking/masking-session.ts';
import { chunkNewPseudonyms, sealPseudonymBatch } from '../tools/masking/pseudonym-map.ts';

/**
 * How a trigger masks the texts a sender wrote (issue 32, item 10): the deployment's masking (mode, secret,
 * patterns), and the new run's pseudonym map it writes the question's values to.
 */
export interface IncidentMasking {
  config: MaskingConfig;
  pseudonyms: Pick<RunStore, 'appendPseudonyms'>;
}

/** A run's question and title as the sender's texts made them: written by the system, but from hostile text. */
export interface IncidentTexts {
  query: string;
  title: string;
}

/**
 * The question and title of a run a trigger starts, masked with that run's own key like any evidence (an alarm's
 * reason or a PagerDuty title often carries a customer's phone or e-mail): what the model, `GET /runs`, the trace and
 * the CLI see. The values go to the run's pseudonym map first, sealed (`MAP#0001`), so the reveal route and the
 * delivery's reveal give them back and the Diagnose function takes them in (the model may pass such a pseudonym to a
 * tool). NOTE: written before the run item: a start that fails after it leaves a map no run item points to, which
 * expires with the map's retention; a map that could not be written starts no run. The masked question is cut to the
 * query's byte limit if its pseudonyms made it longer (a cut pseudonym shows no value).
 */
export async function maskNewRunTexts(
  texts: IncidentTexts,
  run: { runId: string; sessionId: string; createdAt: string },
  masking: IncidentMasking,
  limits?: Partial<RunLimits>,
): Promise<IncidentTexts> {
  const session = createMaskingSession(masking.config, run.runId);
  const masked = {
    query: truncateUtf8(session.maskText(texts.query), buildRunLimits(limits).maxQueryBytes),
    title: session.maskText(texts.title),
  };
  let sequence = 0;
  for (const chunk of chunkNewPseudonyms(session)) {
    sequence += 1;
    const batch = sealPseudonymBatch(session, run, sequence, chunk);
    if (!(await masking.pseudonyms.appendPseudonyms(batch, run.createdAt))) {
      throw new IncidentMaskingError('the new run already has a pseudonym map');
    }
  }
  return masked;
}

/**
 * The title of a later event of an incident, masked with its run's key. NOTE: a value it holds that the run has
 * seen elsewhere gets the run's pseudonym for it; a value seen only here gets a pseudonym no map holds (it is never
 * written: the run may be writing its own map at that moment), so it stays masked everywhere, the reveal included.
 */
export function maskAttachedTitle(title: string, runId: string, masking: IncidentMasking): string {
  return createMaskingSession(masking.config, runId).maskText(title);
}

/** The new run's pseudonym map could not be written as the run's first: nothing was started. */
export class IncidentMaskingError extends Error {
  override readonly name = 'IncidentMaskingError';
  readonly code = 'PSEUDONYM_MAP_CONFLICT';
}
