/**
 * Delivers one `Diagnosis Run Finished` event (one SQS message from the bus's rule) to the run's enterprise's
 * destinations. NOTE: the message is only a pointer: the run is read back from the table and the event rebuilt from
 * the stored run, so a message put on the bus by anyone else (a forged detail, another enterprise's id) can neither
 * change what is sent nor where; the destinations are those of the stored run's enterprise, and no other's.
 * Each destination is its own conditional record (see `DeliveryStore`): one that was delivered is skipped on a
 * retry, one that fails is retried by SQS (the handler backs the message off), and after the last try it is
 * DEAD_LETTERED and SQS moves the message to the dead-letter queue. Nothing here writes the run's item.
 */
import { isRunId, type RunStore } from '@diagnosis/core';
import { isEnded } from '@diagnosis/core/store';
import * as v from 'valibot';
import type { DeliveryStore } from './delivery-store.ts';
import type { DestinationSender } from './destination-senders.ts';
import type { DestinationDirectory } from './destinations.ts';
import { appliesToPagerDuty } from './pagerduty-note.ts';
import { type DeliveryReveal, type RevealOutcome, revealForDestination } from './reveal-run-result.ts';
import {
  buildRunFinishedEvent,
  envelopeOf,
  RUN_FINISHED_DETAIL_TYPE,
  RUN_FINISHED_SOURCE,
  type RunFinishedInput,
  type RunFinishedOptions,
} from './run-finished-event.ts';

export interface DeliveryDeps {
  runs: Pick<RunStore, 'getRun'>;
  deliveries: DeliveryStore;
  destinations: DestinationDirectory;
  send: DestinationSender;
  now: () => number;
  event?: RunFinishedOptions;
  /** How long an attempt holds its run × destination (longer than the function's timeout). */
  leaseMs: number;
  /** The enterprises that opted in to receive real values (`delivery.reveal`); absent: every result goes masked. */
  reveal?: DeliveryReveal;
}

type DestinationOutcome = 'DELIVERED' | 'ALREADY_DELIVERED' | 'BUSY' | 'RETRYING' | 'DEAD_LETTERED';

export type DeliveryReport =
  | { kind: 'DROPPED'; code: 'BAD_MESSAGE' | 'RUN_NOT_FOUND' | 'RUN_NOT_ENDED' | 'ENTERPRISE_MISMATCH' }
  | {
      kind: 'ATTEMPTED';
      runId: string;
      enterpriseId: string;
      destinations: { destinationId: string; outcome: DestinationOutcome; code: string | null }[];
      /** Some destination is still to be delivered: the message must come back. */
      retry: boolean;
      /** Whether the destinations got the real values (see `RevealOutcome`); never a value itself. */
      reveal: RevealOutcome;
    };

/** The envelope fields the deliverer reads; the rest of the detail is rebuilt from the stored run. */
const messageSchema = v.object({
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(128)),
  time: v.pipe(v.string(), v.isoTimestamp()),
  account: v.pipe(v.string(), v.maxLength(32)),
  region: v.pipe(v.string(), v.maxLength(32)),
  'detail-type': v.literal(RUN_FINISHED_DETAIL_TYPE),
  source: v.literal(RUN_FINISHED_SOURCE),
  detail: v.object({
    runId: v.pipe(
      v.string(),
      v.check((id: string) => isRunId(id)),
    ),
    enterpriseId: v.string(),
  }),
});

/**
 * One receive of one message. `receiveCount` is SQS's `ApproximateReceiveCount`; at `maxReceives` (the queue's
 * `maxReceiveCount`) a failure is final.
 */
export async function deliverRunResult(
  body: string,
  attempt: { receiveCount: number; maxReceives: number },
  deps: DeliveryDeps,
): Promise<DeliveryReport> {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: 'DROPPED', code: 'BAD_MESSAGE' };
  }
  const parsed = v.safeParse(messageSchema, json);
  if (!parsed.success) return { kind: 'DROPPED', code: 'BAD_MESSAGE' };
  const message = parsed.output;
  const run = await deps.runs.getRun(message.detail.runId);
  if (run === null) return { kind: 'DROPPED', code: 'RUN_NOT_FOUND' };
  if (!isEnded(run.status)) return { kind: 'DROPPED', code: 'RUN_NOT_ENDED' };
  if (run.enterpriseId !== message.detail.enterpriseId) return { kind: 'DROPPED', code: 'ENTERPRISE_MISMATCH' };

  const input: RunFinishedInput = { ...run, status: run.status };
  const event = buildRunFinishedEvent(input, deps.event);
  const final = attempt.receiveCount >= attempt.maxReceives;
  // NOTE: a PagerDuty destination takes only results of runs a PagerDuty webhook started (a note on that incident);
  // for any other run it is not a destination at all (no attempt, no record).
  const destinations = (deps.destinations.get(run.enterpriseId) ?? []).filter(
    (destination) => destination.type !== 'pagerduty' || appliesToPagerDuty(event.detail),
  );
  // NOTE: the destinations are the run's enterprise's; the reveal checks that again (its own tenant check).
  const revealed =
    destinations.length === 0
      ? { detail: event.detail, outcome: 'MASKED' as const }
      : await revealForDestination(event.detail, run.enterpriseId, deps.reveal);
  const envelope = envelopeOf({ ...event, detail: revealed.detail }, message);
  const outcomes = await Promise.all(
    destinations.map(async (destination) => {
      const key = {
        runId: run.runId,
        enterpriseId: run.enterpriseId,
        destinationId: destination.id,
        destinationType: destination.type,
        runCreatedAt: run.createdAt,
      };
      const claim = await deps.deliveries.beginAttempt(key, deps.now(), deps.leaseMs);
      if (!claim.taken) {
        const outcome: DestinationOutcome = claim.reason === 'DELIVERED' ? 'ALREADY_DELIVERED' : 'BUSY';
        return { destinationId: destination.id, outcome, code: null };
      }
      const sent = await deps.send(destination, envelope);
      if (sent.ok) {
        await deps.deliveries.recordDelivered(key, deps.now());
        return { destinationId: destination.id, outcome: 'DELIVERED' as const, code: null };
      }
      await deps.deliveries.recordFailure(key, sent.code, final, deps.now());
      return {
        destinationId: destination.id,
        outcome: final ? ('DEAD_LETTERED' as const) : ('RETRYING' as const),
        code: sent.code,
      };
    }),
  );
  return {
    kind: 'ATTEMPTED',
    runId: run.runId,
    enterpriseId: run.enterpriseId,
    destinations: outcomes,
    retry: outcomes.some((outcome) => outcome.outcome !== 'DELIVERED' && outcome.outcome !== 'ALREADY_DELIVERED'),
    reveal: revealed.outcome,
  };
}
