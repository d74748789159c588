/**
 * A loopback HTTP proxy in front of the test run's DynamoDB Local that holds every request `delayMs` before it
 * forwards it (a table farther away than the loopback one): a request a run waits on then shows in the run's timing,
 * and a request it does not wait on is still in flight when the run moves on.
 */
import { Agent, createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';

export async function startDynamoDelayProxy(delayMs: number) {
  const target = new URL(inject('dynamodbEndpoint'));
  const agent = new Agent({ keepAlive: true });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const timer = setTimeout(() => {
        timers.delete(timer);
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
        upstream.end(Buffer.concat(chunks));
      }, delayMs);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
