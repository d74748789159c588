/**
 * A loopback HTTP proxy in front of the test run's DynamoDB Local that forwards every request as it is, except the
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
