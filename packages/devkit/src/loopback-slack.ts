/**
 * A loopback Slack Web API (127.0.0.1, a free port) for tests and local runs: the methods the app calls
 * (`chat.postMessage`, `chat.update`, `views.open`), answered in Slack's wire format (HTTP 200 with `{ ok, … }`;
 * `invalid_auth` for a wrong bot token; `message_not_found` for an update of a message it never posted;
 * `invalid_blocks` for a message over Block Kit's limits), every call recorded, and Slack's rate limits: each
 * method's tier (`limits`) and `chat.postMessage`'s one message a second per channel (`channelLimits`); a call over
 * a limit is answered `429` with `Retry-After` (seconds), as Slack does, and changes nothing. Bodies are read as the
 * official client sends them (form-encoded, `blocks` a JSON string) or as JSON. Time comes from `now`, so a test
 * controls the windows. `fault` lets a test make any call fail as a real Slack can: a `429` with its own
 * `Retry-After`, a `5xx`, a reset connection, or a call held unanswered (until `release` resolves, or until the
 * client gives up) — none of these changes any message — or a call answered late (it takes effect when answered).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlackCall {
  method: string;
  /** The call's fields, `blocks` and `view` parsed from their JSON. */
  args: Record<string, unknown>;
  /** 200 (answered: `ok` may still be false), 429 (rate limited), a fault's 5xx, or 0 (reset or never answered). */
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

/** How a call fails instead of being answered (nothing it asked for happens). */
export type SlackFault =
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  | { kind: 'server-error'; status: 500 | 502 | 503 }
  | { kind: 'reset' }
  /** No answer until `release` resolves (then a reset), or until the client closes the connection. */
  | { kind: 'hang'; release?: Promise<void> }
  /** Answered as Slack would, but only once `until` resolves (what the call asks for happens then). */
  | { kind: 'delay'; until: Promise<void> };

export interface LoopbackSlackOptions {
  token: string;
  /** Calls allowed per method per window (default: `chat.update` 50 a minute, Slack's tier 3). */
  limits?: Record<string, { calls: number; windowMs: number }>;
  /** Calls allowed per method per channel per window (default: `chat.postMessage` three in three seconds). */
  channelLimits?: Record<string, { calls: number; windowMs: number }>;
  now?: () => number;
  /** Called after every call (the local runner prints the conversation). */
  onCall?: (call: SlackCall, message: LoopbackSlackMessage | null) => void;
  /** Decides, before anything else, whether a call fails (undefined: answered as Slack would). */
  fault?: (call: { method: string; args: Record<string, unknown>; at: number }) => SlackFault | undefined;
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
/** One a second per channel on average; Slack grants short bursts (here: three within any three seconds). */
const DEFAULT_CHANNEL_LIMITS: Record<string, { calls: number; windowMs: number }> = {
  'chat.postMessage': { calls: 3, windowMs: 3_000 },
};

/** Block Kit's documented limits (https://api.slack.com/reference/block-kit), as far as our messages use it. */
export const BLOCK_KIT_LIMITS = Object.freeze({
  blocks: 50,
  text: 40_000,
  headerText: 150,
  sectionText: 3_000,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2_000,
  blockId: 255,
  actionId: 255,
});

/** Why Slack would refuse these blocks (`invalid_blocks`), or null when it would take them. */
export function blockKitRefusal(blocks: unknown): string | null {
  if (!Array.isArray(blocks)) return 'blocks is not an array';
  if (blocks.length > BLOCK_KIT_LIMITS.blocks) return `${blocks.length} blocks`;
  for (const [index, raw] of blocks.entries()) {
    const block = raw as Record<string, unknown>;
    const text = (block.text as { text?: unknown } | undefined)?.text;
    const length = (value: unknown) => (typeof value === 'string' ? value.length : 0);
    if (typeof block.block_id === 'string' && block.block_id.length > BLOCK_KIT_LIMITS.blockId) {
      return `block ${index}: block_id too long`;
    }
    if (block.type === 'header' && length(text) > BLOCK_KIT_LIMITS.headerText) return `block ${index}: header text`;
    if (block.type === 'section' && length(text) > BLOCK_KIT_LIMITS.sectionText) return `block ${index}: section text`;
    const elements = Array.isArray(block.elements) ? (block.elements as Record<string, unknown>[]) : [];
    if (block.type === 'context' && elements.length > BLOCK_KIT_LIMITS.contextElements) {
      return `block ${index}: context elements`;
    }
    if (block.type === 'actions') {
      if (elements.length > BLOCK_KIT_LIMITS.actionsElements) return `block ${index}: actions elements`;
      for (const element of elements) {
        const label = (element.text as { text?: unknown } | undefined)?.text;
        if (length(label) > BLOCK_KIT_LIMITS.buttonText) return `block ${index}: button text`;
        if (length(element.value) > BLOCK_KIT_LIMITS.buttonValue) return `block ${index}: button value`;
        if (length(element.action_id) > BLOCK_KIT_LIMITS.actionId) return `block ${index}: action_id`;
      }
    }
  }
  return null;
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

export async function startLoopbackSlack(options: LoopbackSlackOptions): Promise<LoopbackSlack> {
  const now = options.now ?? Date.now;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const channelLimits = { ...DEFAULT_CHANNEL_LIMITS, ...options.channelLimits };
  const calls: SlackCall[] = [];
  const messages = new Map<string, LoopbackSlackMessage>();
  let sequence = 0;
  const server = createServer(async (request, response) => {
    const raw = await readBody(request);
    const method = (request.url ?? '').replace(/^\/api\//, '').split('?')[0] ?? '';
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
    let at = now();
    const record = (status: number, message: LoopbackSlackMessage | null = null) => {
      const call = { method, args, status, at };
      calls.push(call);
      options.onCall?.(call, message);
    };
    const fault = options.fault?.({ method, args, at });
    if (fault?.kind === 'delay') {
      await fault.until;
      at = now();
    } else if (fault !== undefined) {
      if (fault.kind === 'rate-limited') {
        record(429);
        send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(fault.retryAfterSeconds) });
      } else if (fault.kind === 'server-error') {
        record(fault.status);
        send(fault.status, { ok: false, error: 'fatal_error' });
      } else {
        record(0);
        if (fault.kind === 'reset') response.socket?.destroy();
        else void fault.release?.then(() => response.socket?.destroy());
      }
      return;
    }
    if (request.headers.authorization !== `Bearer ${options.token}`) {
      record(200);
      send(200, { ok: false, error: 'invalid_auth' });
      return;
    }
    const channel = String(args.channel ?? '');
    const overLimit = (limit: { calls: number; windowMs: number } | undefined, sameChannel: boolean) => {
      if (limit === undefined) return null;
      const recent = calls.filter(
        (call) =>
          call.method === method &&
          call.status === 200 &&
          call.at > at - limit.windowMs &&
          (!sameChannel || String(call.args.channel ?? '') === channel),
      );
      if (recent.length < limit.calls) return null;
      const oldest = recent[0]?.at ?? at;
      return Math.max(1, Math.ceil((oldest + limit.windowMs - at) / 1_000));
    };
    const retryAfter = overLimit(limits[method], false) ?? overLimit(channelLimits[method], true);
    if (retryAfter !== null) {
      record(429);
      send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
      return;
    }
    if (method === 'chat.postMessage' || method === 'chat.update') {
      const refusal = args.blocks === undefined ? null : blockKitRefusal(args.blocks);
      if (refusal !== null || String(args.text ?? '').length > BLOCK_KIT_LIMITS.text) {
        record(200);
        send(200, { ok: false, error: refusal === null ? 'msg_too_long' : 'invalid_blocks' });
        return;
      }
    }
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
      record(200, message);
      send(200, { ok: true, channel, ts, message: { ts, text: message.text } });
      return;
    }
    if (method === 'chat.update') {
      const message = messages.get(`${channel}/${String(args.ts ?? '')}`);
      if (message === undefined) {
        record(200);
        send(200, { ok: false, error: 'message_not_found' });
        return;
      }
      message.text = String(args.text ?? '');
      message.blocks = Array.isArray(args.blocks) ? args.blocks : [];
      message.updates += 1;
      record(200, message);
      send(200, { ok: true, channel, ts: message.ts, text: message.text });
      return;
    }
    if (method === 'views.open') {
      record(200);
      send(200, { ok: true, view: { id: `V${String(calls.length).padStart(8, '0')}` } });
      return;
    }
    record(200);
    send(200, { ok: false, error: 'unknown_method' });
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
