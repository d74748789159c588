/**
 * A loopback Slack Web API (127.0.0.1, a free port) for tests and local runs: the methods the app calls
 * (`chat.postMessage`, `chat.update`, `views.open`), answered in Slack's wire format (HTTP 200 with `{ ok, … }`;
 * `invalid_auth` for a wrong bot token; `message_not_found` for an update of a message it never posted), every call
 * recorded, and a per-method rate limit: a call over `limits[method]` in its window is answered `429` with
 * `Retry-After` (seconds), as Slack does. Bodies are read as the official client sends them (form-encoded, `blocks` a
 * JSON string) or as JSON. Time comes from `now`, so a test controls the windows.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  method: string;
  /** The call's fields, `blocks` and `view` parsed from their JSON. */
  args: Record<string, unknown>;
  /** 200 (answered), or 429 (rate limited). */
  status: number;
  at: number;
}

export interface LoopbackSlackMessage {
  channel: string;
  ts: string;
  threadTs: string | null;
  text: string;
  blocks: unknown[];
  /** How many times it was updated. */
  updates: number;
}

export interface LoopbackSlackOptions {
  token: string;
  /** Calls allowed per method per window (default: `chat.update` 50 a minute, Slack's tier 3). */
  limits?: Record<string, { calls: number; windowMs: number }>;
  now?: () => number;
  /** Called after every call (the local runner prints the conversation). */
  onCall?: (call: SlackCall, message: LoopbackSlackMessage | null) => void;
}

export interface LoopbackSlack {
  /** The `slackApiUrl` to give the client (ends in `/api/`). */
  apiUrl: string;
  calls: SlackCall[];
  messages: Map<string, LoopbackSlackMessage>;
  close(): Promise<void>;
}

const DEFAULT_LIMITS: Record<string, { calls: number; windowMs: number }> = {
  'chat.update': { calls: 50, windowMs: 60_000 },
  'chat.postMessage': { calls: 60, windowMs: 60_000 },
  'views.open': { calls: 100, windowMs: 60_000 },
};

export async function startLoopbackSlack(options: LoopbackSlackOptions): Promise<LoopbackSlack> {
  const now = options.now ?? Date.now;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const calls: SlackCall[] = [];
  const messages = new Map<string, LoopbackSlackMessage>();
  let sequence = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
      const raw = Buffer.concat(chunks).toString('utf8');
      const send = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        response.end(JSON.stringify(body));
      };
      let args: Record<string, unknown>;
      try {
        args = (request.headers['content-type'] ?? '').includes('application/json')
          ? (JSON.parse(raw) as Record<string, unknown>)
          : Object.fromEntries(new URLSearchParams(raw));
        for (const field of ['blocks', 'view']) {
          if (typeof args[field] === 'string') args[field] = JSON.parse(args[field] as string);
        }
      } catch {
        send(200, { ok: false, error: 'invalid_arguments' });
        return;
      }
      const at = now();
      if (request.headers.authorization !== `Bearer ${options.token}`) {
        calls.push({ method, args, status: 200, at });
        send(200, { ok: false, error: 'invalid_auth' });
        return;
      }
      const limit = limits[method];
      if (limit !== undefined) {
        const recent = calls.filter(
          (call) => call.method === method && call.status === 200 && call.at > at - limit.windowMs,
        );
        if (recent.length >= limit.calls) {
          const oldest = recent[0]?.at ?? at;
          const retryAfter = Math.max(1, Math.ceil((oldest + limit.windowMs - at) / 1_000));
          const call = { method, args, status: 429, at };
          calls.push(call);
          options.onCall?.(call, null);
          send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
          return;
        }
      }
      const call = { method, args, status: 200, at };
      calls.push(call);
      const channel = String(args.channel ?? '');
      if (method === 'chat.postMessage') {
        sequence += 1;
        const ts = `${Math.floor(at / 1_000)}.${String(sequence).padStart(6, '0')}`;
        const message: LoopbackSlackMessage = {
          channel,
          ts,
          threadTs: typeof args.thread_ts === 'string' ? args.thread_ts : null,
          text: String(args.text ?? ''),
          blocks: Array.isArray(args.blocks) ? args.blocks : [],
          updates: 0,
        };
        messages.set(`${channel}/${ts}`, message);
        options.onCall?.(call, message);
        send(200, { ok: true, channel, ts, message: { ts, text: message.text } });
        return;
      }
      if (method === 'chat.update') {
        const message = messages.get(`${channel}/${String(args.ts ?? '')}`);
        if (message === undefined) {
          send(200, { ok: false, error: 'message_not_found' });
          return;
        }
        message.text = String(args.text ?? '');
        message.blocks = Array.isArray(args.blocks) ? args.blocks : [];
        message.updates += 1;
        options.onCall?.(call, message);
        send(200, { ok: true, channel, ts: message.ts, text: message.text });
        return;
      }
      if (method === 'views.open') {
        options.onCall?.(call, null);
        send(200, { ok: true, view: { id: `V${String(calls.length).padStart(8, '0')}` } });
        return;
      }
      send(200, { ok: false, error: 'unknown_method' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    calls,
    messages,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
