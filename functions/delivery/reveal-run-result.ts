/**
 * The delivery's reveal (issue #22, docs/masking.md): for an enterprise whose stage file opts in
 * (`delivery.reveal: { "E1001": true }`), the result is delivered with the real values behind the run's pseudonyms,
 * read from the run's own sealed map (`PSEUDONYMS#<runId>`). NOTE: revealing happens on the event's texts, before the
 * destination's builder: a real value is hostile text like any other, so the Slack builder still escapes it, the SNS
 * builder still replaces control characters and the webhook's JSON still encodes it. Secrets were redacted
 * irreversibly at the tool boundary and have no entry in the map: they stay `[REDACTED:…]`. A map that cannot be read
 * never fails a delivery: the result goes out masked, with a stable code for the log, never a value.
 */
import {
  openPseudonymBatches,
  PSEUDONYM_PATTERN,
  type PseudonymEntry,
  type RunStore,
  revealText,
  type StoredPseudonymBatch,
} from '@diagnosis/core';
import type { RunFinishedDetail } from './run-finished-event.ts';

/** What the deliverer needs to reveal: who opted in, the map's reader and the secret that opens it. */
export interface DeliveryReveal {
  /** The enterprises whose stage file says `delivery.reveal: { "<id>": true }`. */
  enterprises: ReadonlySet<string>;
  pseudonyms: Pick<RunStore, 'listPseudonyms'>;
  /**
   * The deployment's masking secret (the SST secret `MaskingKey`); null when none is linked (a deployed function
   * without it): the map is then not read, and the result goes out masked (`PSEUDONYM_MAP_UNREADABLE`).
   */
  secret: string | null;
}

/**
 * How a delivery went out: `MASKED` (the enterprise did not opt in), `REVEALED`, or masked after all because the
 * map could not be read (`PSEUDONYM_MAP_UNREADABLE`: a read error, another secret, an altered batch) or lacks a
 * pseudonym the result shows (`PSEUDONYM_MAP_INCOMPLETE`: expired, or never written).
 */
export const REVEAL_OUTCOMES = Object.freeze([
  'MASKED',
  'REVEALED',
  'PSEUDONYM_MAP_UNREADABLE',
  'PSEUDONYM_MAP_INCOMPLETE',
] as const);
export type RevealOutcome = (typeof REVEAL_OUTCOMES)[number];

/** The most batches of a map read (a map holds at most 5,000 entries: 13 batches of 400). */
const MAX_BATCHES = 20;

/** `detail` with the pseudonyms of `entries` replaced by their values, in every text the destinations render. */
function revealDetail(detail: RunFinishedDetail, entries: ReadonlyMap<string, PseudonymEntry>): RunFinishedDetail {
  const reveal = (text: string) => revealText(text, entries);
  return {
    ...detail,
    query: reveal(detail.query),
    conclusion: detail.conclusion === null ? null : reveal(detail.conclusion),
    message: detail.message === null ? null : reveal(detail.message),
    findings: detail.findings.map((finding) => ({
      ...finding,
      statement: reveal(finding.statement),
      scope: finding.scope === null ? null : reveal(finding.scope),
    })),
    actionPlan: detail.actionPlan.map((item) => ({ step: reveal(item.step), purpose: reveal(item.purpose) })),
    recommendations: detail.recommendations.map(reveal),
    limitations: {
      checkedScope: detail.limitations.checkedScope.map(reveal),
      missingInfo: detail.limitations.missingInfo.map(reveal),
    },
  };
}

/**
 * The detail a destination of `destinationEnterpriseId` receives: revealed only when that enterprise opted in AND
 * it is the run's own enterprise (NOTE: checked here, not only by the caller's choice of destinations: a run's real
 * values never reach another enterprise's destination); otherwise the detail as it is, masked.
 */
export async function revealForDestination(
  detail: RunFinishedDetail,
  destinationEnterpriseId: string,
  reveal: DeliveryReveal | undefined,
): Promise<{ detail: RunFinishedDetail; outcome: RevealOutcome }> {
  if (
    reveal === undefined ||
    destinationEnterpriseId !== detail.enterpriseId ||
    !reveal.enterprises.has(destinationEnterpriseId)
  ) {
    return { detail, outcome: 'MASKED' };
  }
  if (reveal.secret === null) return { detail, outcome: 'PSEUDONYM_MAP_UNREADABLE' };
  const { secret } = reveal;
  let entries: Map<string, PseudonymEntry>;
  try {
    const batches: StoredPseudonymBatch[] = [];
    let cursor: string | undefined;
    do {
      const page = await reveal.pseudonyms.listPseudonyms(detail.runId, {
        limit: MAX_BATCHES,
        ...(cursor === undefined ? {} : { cursor }),
      });
      batches.push(...page.records);
      cursor = page.cursor ?? undefined;
    } while (cursor !== undefined && batches.length < MAX_BATCHES);
    entries = new Map(openPseudonymBatches(secret, detail.runId, batches).map((entry) => [entry.token, entry]));
  } catch {
    return { detail, outcome: 'PSEUDONYM_MAP_UNREADABLE' };
  }
  // NOTE: all or nothing: a result that shows one pseudonym the map lacks goes out wholly masked (issue 32, item 9),
  // never with some values revealed and the rest left as pseudonyms.
  if (!mapHoldsEvery(detail, entries)) return { detail, outcome: 'PSEUDONYM_MAP_INCOMPLETE' };
  return { detail: revealDetail(detail, entries), outcome: 'REVEALED' };
}

/** Whether every pseudonym in a text the destinations render is one of `entries`. */
function mapHoldsEvery(detail: RunFinishedDetail, entries: ReadonlyMap<string, PseudonymEntry>): boolean {
  const texts = [
    detail.query,
    detail.conclusion ?? '',
    detail.message ?? '',
    ...detail.findings.flatMap((finding) => [finding.statement, finding.scope ?? '']),
    ...detail.actionPlan.flatMap((item) => [item.step, item.purpose]),
    ...detail.recommendations,
    ...detail.limitations.checkedScope,
    ...detail.limitations.missingInfo,
  ];
  return texts.every((text) => [...text.matchAll(PSEUDONYM_PATTERN)].every((match) => entries.has(match[0])));
}
