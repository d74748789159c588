/**
 * A loopback HTTP receiver (127.0.0.1, a free port) that records each request's raw body and headers and answers as
 * the test scripts it: a status, a hang (never answers), or a 200 whose body never ends.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Answer = { status: number } | 'hang' | 'status-then-hang';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LoopbackReceiver {
  url: (path: string) => string;
  received: ReceivedRequest[];
  /** The answer for the next requests to `path` (default 200). */
  answer: (path: string, answer: Answer) => void;
  close: () => Promise<void>;
}

export async function startLoopbackReceiver(): Promise<LoopbackReceiver> {
  const received: ReceivedRequest[] = [];
  const answers = new Map<string, Answer>();
  const open = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.get(path) ?? { status: 200 };
      if (answer === 'hang') {
        open.add(response);
        return;
      }
      if (answer === 'status-then-hang') {
        open.add(response);
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('o');
        return;
      }
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.status === 200 ? 'ok' : 'error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    answer: (path, answer) => answers.set(path, answer),
    close: async () => {
      for (const response of open) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
