import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** One audit put as the client saw it: its item key and when it was sent and answered (a sequence, not a clock). */
export interface CountedWrite {
  key: string;
  sentAt: number;
  answeredAt: number | null;
}

/** The sort keys of audit items (steps, tool invocations); the run item and its updates are not audit writes. */
const AUDIT_SORT_KEY = /^(STEP#|TOOL#|TOOLID#)/;

function itemKeyOf(input: unknown): { pk: string; sk: string } | null {
  const item = (input as { Item?: Record<string, unknown> } | undefined)?.Item;
  if (item === undefined) return null;
  // NOTE: depending on where the document client marshals, a key is a string or a `{ S }` attribute value here.
  const text = (value: unknown) =>
    typeof value === 'string' ? value : ((value as { S?: unknown } | undefined)?.S as string | undefined);
  const pk = text(item.pk);
  const sk = text(item.sk);
  return pk === undefined || sk === undefined ? null : { pk, sk };
}

/**
 * A model round's audit write (its step and reasoning puts in one TransactWriteItems): the key of its first item, or
 * null for any other transaction (a run's start, the admission of a run).
 */
function roundKeyOf(input: unknown): { pk: string; sk: string } | null {
  const items = (input as { TransactItems?: { Put?: unknown }[] } | undefined)?.TransactItems ?? [];
  const keys = items.map((entry) => (entry.Put === undefined ? null : itemKeyOf(entry.Put)));
  const [first] = keys;
  return first !== undefined && first !== null && keys.every((key) => key !== null && AUDIT_SORT_KEY.test(key.sk))
    ? first
    : null;
}

/**
 * Counts, with a middleware on the client itself, how many audit puts (`PutItem` of a tool item, or a round's step and
 * reasoning in one `TransactWriteItems`)
 * are in flight at once: from the moment `send` enters the client's stack to its answer, SDK retries included. Also
 * counts every request in flight, and keeps each audit put's send and answer in one sequence, so tests can check that
 * a put to a key was sent only after the earlier put to that key was answered.
 */
export function countWritesInFlight(client: DynamoDBClient) {
  let auditInFlight = 0;
  let auditPeak = 0;
  let requestsInFlight = 0;
  let requestsPeak = 0;
  let sequence = 0;
  const writes: CountedWrite[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const key =
        context.commandName === 'PutItemCommand'
          ? itemKeyOf(args.input)
          : context.commandName === 'TransactWriteItemsCommand'
            ? roundKeyOf(args.input)
            : null;
      const audit = key !== null && AUDIT_SORT_KEY.test(key.sk);
      requestsInFlight += 1;
      requestsPeak = Math.max(requestsPeak, requestsInFlight);
      let write: CountedWrite | undefined;
      if (audit) {
        auditInFlight += 1;
        auditPeak = Math.max(auditPeak, auditInFlight);
        sequence += 1;
        write = { key: `${key.pk}|${key.sk}`, sentAt: sequence, answeredAt: null };
        writes.push(write);
      }
      try {
        return await next(args);
      } finally {
        requestsInFlight -= 1;
        if (write !== undefined) {
          auditInFlight -= 1;
          sequence += 1;
          write.answeredAt = sequence;
        }
      }
    },
    { step: 'initialize', name: 'countWritesInFlight', priority: 'high' },
  );
  return {
    /** The most audit puts that were in flight at one time. */
    auditPeak: () => auditPeak,
    /** The most requests of any kind that were in flight at one time. */
    requestsPeak: () => requestsPeak,
    auditInFlight: () => auditInFlight,
    writes: () => writes as readonly CountedWrite[],
    reset() {
      auditPeak = auditInFlight;
      requestsPeak = requestsInFlight;
      writes.length = 0;
    },
  };
}
