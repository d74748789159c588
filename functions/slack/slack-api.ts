/**
 * Port and adapter: the Slack Web API methods the app calls (`chat.postMessage`, `chat.update`, `views.open`), over
 * the official `@slack/web-api` client. NOTE: the client's defaults do not fit a Lambda (no request timeout; a non-200
 * retried about ten times over half an hour; a 429 sleeps its whole queue): here every call is one attempt, bounded
 * in time, and a 429 is returned as a value with its `Retry-After`, so the caller decides (the card coalesces, the
 * worker backs off through the queue). Errors are stable codes; no response body, token or exception text is kept.
 */
import { type WebAPICallError, WebClient } from '@slack/web-api';

interface SlackMessagePayload {
  text: string;
  blocks: readonly unknown[];
}

export type SlackCallResult<T = Record<never, never>> =
  | ({ ok: true } & T)
  | { ok: false; code: string; retryAfterSeconds: number | null };

/** Port: one workspace's bot, as the app uses it. */
export interface SlackApi {
  postMessage(
    request: { channel: string; threadTs?: string } & SlackMessagePayload,
  ): Promise<SlackCallResult<{ ts: string }>>;
  updateMessage(request: { channel: string; ts: string } & SlackMessagePayload): Promise<SlackCallResult>;
  openView(request: { triggerId: string; view: Record<string, unknown> }): Promise<SlackCallResult>;
}

export interface SlackApiOptions {
  token: string;
  /** Each call's limit, connection to last byte. */
  timeoutMs: number;
  /** Slack's API base (`https://slack.com/api/`); tests and the local runner point it at a loopback Slack. */
  apiUrl?: string;
}

/** A Slack error code as it may be logged: Slack's own `error` word, or the client's error class. */
function codeOf(error: unknown): { code: string; retryAfterSeconds: number | null } {
  const failure = error as Partial<WebAPICallError> & { data?: { error?: unknown }; retryAfter?: unknown };
  if (failure.code === 'slack_webapi_rate_limited_error') {
    const after = typeof failure.retryAfter === 'number' && failure.retryAfter >= 0 ? failure.retryAfter : 1;
    return { code: 'RATE_LIMITED', retryAfterSeconds: Math.min(after, 900) };
  }
  if (failure.code === 'slack_webapi_platform_error') {
    const word = failure.data?.error;
    return {
      code: `SLACK_${typeof word === 'string' && /^[a-z_]{1,64}$/.test(word) ? word : 'error'}`,
      retryAfterSeconds: null,
    };
  }
  if (failure.code === 'slack_webapi_http_error') return { code: 'HTTP_ERROR', retryAfterSeconds: null };
  return { code: 'NETWORK', retryAfterSeconds: null };
}

/** The adapter over `WebClient`: one attempt a call, `timeoutMs` each, 429 as a value. */
export function createSlackApi(options: SlackApiOptions): SlackApi {
  const client = new WebClient(options.token, {
    ...(options.apiUrl === undefined ? {} : { slackApiUrl: options.apiUrl }),
    timeout: options.timeoutMs,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    // NOTE: its own logger would print Slack's answers (and in debug, our requests): silenced, we log codes.
    logger: {
      debug() {},
      info() {},
      warn() {},
      error() {},
      setLevel() {},
      getLevel: () => 'error' as never,
      setName() {},
    },
    allowAbsoluteUrls: false,
  });
  const call = async <T>(run: () => Promise<T>): Promise<SlackCallResult<T>> => {
    try {
      return { ok: true, ...(await run()) };
    } catch (error) {
      return { ok: false, ...codeOf(error) };
    }
  };
  return {
    postMessage: (request) =>
      call(async () => {
        const answer = await client.chat.postMessage({
          channel: request.channel,
          text: request.text,
          blocks: request.blocks as never,
          ...(request.threadTs === undefined ? {} : { thread_ts: request.threadTs }),
          unfurl_links: false,
          unfurl_media: false,
        });
        if (typeof answer.ts !== 'string') throw new Error('no ts');
        return { ts: answer.ts };
      }),
    updateMessage: (request) =>
      call(async () => {
        await client.chat.update({
          channel: request.channel,
          ts: request.ts,
          text: request.text,
          blocks: request.blocks as never,
        });
        return {};
      }),
    openView: (request) =>
      call(async () => {
        await client.views.open({ trigger_id: request.triggerId, view: request.view as never });
        return {};
      }),
  };
}
