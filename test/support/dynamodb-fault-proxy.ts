/**
 * Loopback HTTP proxies in front of the test run's DynamoDB Local (real sockets, the engine's own bytes).
 *
 * `startDynamoFaultProxy` forwards every request as it is, except the
 * PutItem requests of one sort key: their first `times` attempts are answered with a recorded wire answer of DynamoDB
 * Local instead (`test/fixtures/dynamodb-local-wire/`), or their connection is reset unanswered (`'reset'`: what a
 * client meets when it reuses a kept-alive connection the server has just closed), never reaching the table. The SDK
 * thus meets the engine's own bytes, or a dead connection, on a real socket.
 */
import { readFileSync } from 'node:fs';
import { Agent, createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';

export interface RecordedWireAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export function loadDynamoWireAnswer(name: string): RecordedWireAnswer {
  const path = new URL(`../fixtures/dynamodb-local-wire/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(path, 'utf8')) as RecordedWireAnswer;
}

export interface DynamoFaultProxy {
  endpoint: string;
  /** PutItem requests of the sort key seen so far (answered by the fixture or forwarded). */
  attempts: () => number;
  close: () => Promise<void>;
}

export async function startDynamoFaultProxy(options: {
  sortKey: string;
  answer: RecordedWireAnswer | 'reset';
  times: number;
}): Promise<DynamoFaultProxy> {
  const target = new URL(inject('dynamodbEndpoint'));
  const agent = new Agent({ keepAlive: true });
  let attempts = 0;
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      if (isPutOf(incoming.headers['x-amz-target'], body, options.sortKey)) {
        attempts += 1;
        if (attempts <= options.times) {
          if (options.answer === 'reset') incoming.socket.resetAndDestroy();
          else {
            outgoing.writeHead(options.answer.status, options.answer.headers);
            outgoing.end(options.answer.body);
          }
          return;
        }
      }
      const upstream = forward(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
          agent,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    attempts: () => attempts,
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isPutOf(target: string | string[] | undefined, body: Buffer, sortKey: string): boolean {
  if (target !== 'DynamoDB_20120810.PutItem') return false;
  const parsed = JSON.parse(body.toString('utf8')) as { Item?: { sk?: { S?: string } } };
  return parsed.Item?.sk?.S === sortKey;
}

/**
 * What a fault window does to the requests that reach the proxy while it lasts: `stall` holds every request
 * unanswered (a hung engine, a black-holed path: the request is never answered, even after the window), `reset` resets
 * every connection unanswered, `answer-writes` answers every write (PutItem, UpdateItem, DeleteItem,
 * TransactWriteItems, BatchWriteItem) with `answer` and forwards the reads.
 */
export type DynamoFault = { kind: 'stall' } | { kind: 'reset' } | { kind: 'answer-writes'; answer: RecordedWireAnswer };

export interface DynamoFaultWindows {
  endpoint: string;
  /** Starts `fault` now, for `ms` (a window replaces the one before it). */
  inject(fault: DynamoFault, ms: number): void;
  /** The requests a fault met, by kind. */
  faulted: () => Record<DynamoFault['kind'], number>;
  close: () => Promise<void>;
}

const WRITE_TARGETS = new Set(
  ['PutItem', 'UpdateItem', 'DeleteItem', 'TransactWriteItems', 'BatchWriteItem'].map(
    (operation) => `DynamoDB_20120810.${operation}`,
  ),
);

/**
 * A loopback proxy in front of the test run's DynamoDB Local that forwards every request as it is, except while a
 * fault window set by `inject` lasts (the window's clock is real time: the client's own timeouts meet it).
 */
export async function startDynamoFaultWindows(): Promise<DynamoFaultWindows> {
  const target = new URL(inject('dynamodbEndpoint'));
  const agent = new Agent({ keepAlive: true });
  let window: { fault: DynamoFault; until: number } | null = null;
  const faulted = { stall: 0, reset: 0, 'answer-writes': 0 };
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks);
      const fault = window !== null && Date.now() < window.until ? window.fault : null;
      if (fault?.kind === 'stall') {
        faulted.stall += 1;
        return;
      }
      if (fault?.kind === 'reset') {
        faulted.reset += 1;
        incoming.socket.resetAndDestroy();
        return;
      }
      if (fault?.kind === 'answer-writes' && WRITE_TARGETS.has(String(incoming.headers['x-amz-target']))) {
        faulted['answer-writes'] += 1;
        outgoing.writeHead(fault.answer.status, fault.answer.headers);
        outgoing.end(fault.answer.body);
        return;
      }
      const upstream = forward(
        {
          host: target.hostname,
          port: target.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
          agent,
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      upstream.on('error', () => outgoing.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    inject: (fault, ms) => {
      window = { fault, until: Date.now() + ms };
    },
    faulted: () => ({ ...faulted }),
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
