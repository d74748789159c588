/**
 * Expert evidence recall: of the messages in the experts' error-log outputs (golden-trajectory.ts, `expertMessages`),
 * the share that reached the agent — a message counts when its masked form is inside a log message of an observation
 * the agent received for the same service. Two figures per case:
 * - `messages`: every distinct expert message (no timestamps, no stack frames);
 * - `signatures`: the messages that carry the root cause's signature (the MySQL driver's `Access denied for user`,
 *   `Communications link failure` / `Connection refused`, `Too many connections`, `--read-only`), for the root causes
 *   that have one.
 * A message that did not reach the agent is put down to the first place it was lost, in the order a line travels:
 * `parser` (no imported record of the service holds it), `budget` (the run asked nothing of that service: the
 * replay's calls past the run's tool-call budget), `window` / `level` (records hold it, none inside the query's
 * window / of its level), `limit` (none among the lines the adapter returned, newest first), `cut` (returned, but the
 * observation's bounds left it out: its record fell to the 8 KiB cut or the message was cut at its 400 characters),
 * `masking` (inside what the observation showed, yet its masked form is not).
 */
import { PROJECTION_LIMITS } from '@diagnosis/core';

/** Root causes with a signature line, and the pattern that finds it. */
const SIGNATURES: Readonly<Record<string, RegExp>> = Object.freeze({
  mysql_invalid_credentials: /Access denied for user/,
  mysql_invalid_port: /Communications link failure|Connection refused/,
  db_connection_exhaustion: /Too many connections/,
  db_read_only: /--read-only/,
});

export const LOSS_PLACES = ['parser', 'budget', 'window', 'level', 'limit', 'cut', 'masking'] as const;
export type LossPlace = (typeof LOSS_PLACES)[number];

interface RecallCount {
  expert: number;
  found: number;
}

export interface EvidenceRecall {
  messages: RecallCount;
  signatures: RecallCount;
  /** Where each expert message that did not reach the agent was lost. */
  lost: Record<LossPlace, number>;
}

export interface ServiceEvidence {
  /** The distinct expert messages of this service (raw, as `expertMessages` gives them). */
  expert: readonly string[];
  /** Every imported record of the service: its time, level and message (unmasked, whole). */
  records: readonly { time: number; level: string; message: string }[];
  /** Each call the agent made to this service: its window and level, what the adapter returned, what was shown. */
  calls: readonly {
    startMs: number;
    endMs: number;
    level: string | undefined;
    /** The adapter's lines (unmasked, whole), newest first. */
    returned: readonly string[];
    /** The log messages of the observation the agent received (masked, bounded). */
    shown: readonly string[];
  }[];
}

/** The recall of one case over its services (see the module's note). */
export function measureEvidenceRecall(
  services: ReadonlyMap<string, ServiceEvidence>,
  rootCause: string,
  mask: (text: string) => string,
  onLost?: (message: string, place: LossPlace) => void,
): EvidenceRecall {
  const signature = SIGNATURES[rootCause];
  const recall: EvidenceRecall = {
    messages: { expert: 0, found: 0 },
    signatures: { expert: 0, found: 0 },
    lost: { parser: 0, budget: 0, window: 0, level: 0, limit: 0, cut: 0, masking: 0 },
  };
  for (const evidence of services.values()) {
    const shown = evidence.calls.flatMap((call) => call.shown);
    for (const message of evidence.expert) {
      const masked = mask(message);
      const found = shown.some((line) => line.includes(masked));
      const isSignature = signature?.test(message) === true;
      recall.messages.expert += 1;
      if (isSignature) recall.signatures.expert += 1;
      if (found) {
        recall.messages.found += 1;
        if (isSignature) recall.signatures.found += 1;
        continue;
      }
      const place = lossPlace(message, evidence);
      recall.lost[place] += 1;
      onLost?.(message, place);
    }
  }
  return recall;
}

function lossPlace(message: string, evidence: ServiceEvidence): LossPlace {
  const holding = evidence.records.filter((record) => record.message.includes(message));
  if (holding.length === 0) return 'parser';
  if (evidence.calls.length === 0) return 'budget';
  const inWindow = holding.filter((record) =>
    evidence.calls.some((call) => record.time >= call.startMs && record.time <= call.endMs),
  );
  if (inWindow.length === 0) return 'window';
  const ofLevel = inWindow.filter((record) =>
    evidence.calls.some(
      (call) =>
        record.time >= call.startMs &&
        record.time <= call.endMs &&
        (call.level === undefined || call.level === record.level),
    ),
  );
  if (ofLevel.length === 0) return 'level';
  const returned = evidence.calls.filter((call) => call.returned.some((line) => line.includes(message)));
  if (returned.length === 0) return 'limit';
  // Inside what the observation showed: the record among the rows it kept, and the message within its cut.
  const visible = returned.some((call) =>
    call.returned.some(
      (line, index) => index < call.shown.length && line.slice(0, PROJECTION_LIMITS.logMessageChars).includes(message),
    ),
  );
  return visible ? 'masking' : 'cut';
}
