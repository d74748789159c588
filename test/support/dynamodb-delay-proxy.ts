/**
 * A loopback HTTP proxy in front of the test run's DynamoDB Local that holds every request `delayMs` before it
 * forwards it (a table farther away than the loopback one): a request a run waits on then shows in the run's timing,
 * and a request it does not wait on is still in flight when the run moves on.
 * `shut()` shuts the gate: a request that arrives while it is shut is held until `open()` (or, at the most,
 * `gateMaxMs`): a request the run waits on while the gate is shut holds the run up until then, whatever else the run
 * does meanwhile, and one it does not wait on cannot end before the gate opens. NOTE: the cap only ends a wait that
 * would never end (a run held by the request it waits on); it must be longer than anything the run does before it
 * opens the gate, on a loaded machine too, and shorter than the client's answer timeout (15 s for a loopback
 * endpoint, `dynamoRequestHandler`), so the held request is answered, not timed out.
 */
import { Agent, createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inject } from 'vitest';

export async function startDynamoDelayProxy(initialDelayMs: number, gateMaxMs = 10_000) {
  let delayMs = initialDelayMs;
  const target = new URL(inject('dynamodbEndpoint'));
  const agent = new Agent({ keepAlive: true });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let gate: { held: (() => void)[] } | null = null;
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const send = () => {
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
      };
      const after = (ms: number, then: () => void) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          then();
        }, ms);
        timers.add(timer);
        return timer;
      };
      if (gate === null) {
        after(delayMs, send);
        return;
      }
      // Held behind the shut gate: sent once it opens (with the usual delay), or at gateMaxMs, whichever comes first.
      let sent = false;
      const once = () => {
        if (sent) return;
        sent = true;
        clearTimeout(cap);
        timers.delete(cap);
        after(delayMs, send);
      };
      const cap = after(Math.max(0, gateMaxMs - delayMs), once);
      gate.held.push(once);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    /** Holds the requests that arrive from now on `ms` each (0: forwarded at once). */
    delay: (ms: number) => {
      delayMs = ms;
    },
    /** Shuts the gate: the requests that arrive from now on are held until `open()`. */
    shut: () => {
      gate ??= { held: [] };
    },
    /** Opens the gate: every held request goes on (after the usual delay). */
    open: () => {
      const held = gate?.held ?? [];
      gate = null;
      for (const release of held) release();
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
