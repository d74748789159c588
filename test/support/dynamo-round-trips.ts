/**
 * The DynamoDB requests this process sends, timed at the client (Node's HTTP client diagnostics channel: nothing added
 * between the client and the engine), and their grouping into round trips: requests that overlap in time are one
 * round trip (sent together, waited on together).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';

export interface Span {
  operation: string;
  start: number;
  end: number;
}

/** Every DynamoDB request this process sends while `work` runs: its operation, start and end. */
export async function countDynamoRequests<T>(work: () => Promise<T>): Promise<{ result: T; spans: Span[] }> {
  const spans: Span[] = [];
  const onRequest = (message: unknown) => {
    const { request } = message as { request: ClientRequest };
    const target = request.getHeader('x-amz-target');
    if (typeof target !== 'string' || !target.startsWith('DynamoDB_')) return;
    const span = { operation: target.replace(/^DynamoDB_\d+\./, ''), start: performance.now(), end: Infinity };
    spans.push(span);
    request.on('response', (answer: IncomingMessage) =>
      answer.on('end', () => {
        span.end = performance.now();
      }),
    );
  };
  subscribe('http.client.request.start', onRequest);
  try {
    return { result: await work(), spans };
  } finally {
    unsubscribe('http.client.request.start', onRequest);
  }
}

/** Requests grouped into round trips: a request that starts after every earlier one has ended begins a new trip. */
export function roundTrips(spans: readonly Span[]): Span[][] {
  const trips: Span[][] = [];
  let busyUntil = -Infinity;
  for (const span of [...spans].sort((left, right) => left.start - right.start)) {
    if (span.start >= busyUntil || trips.length === 0) trips.push([span]);
    else trips.at(-1)?.push(span);
    busyUntil = Math.max(busyUntil, span.end);
  }
  return trips;
}
