/**
 * The HTTP side of `diagnosis serve`: a Node HTTP server that stands where API Gateway stands. Each request is matched
 * against the route table, turned into the payload-2.0 event its function receives (http-api-event.ts; on an IAM route
 * with the local principal's authorizer context), handed to the real handler with a Lambda context, and the handler's
 * answer written back as API Gateway writes it (status, headers, cookies, a base64 body decoded). What API Gateway
 * answers itself is answered the same here: 404 `{"message":"Not Found"}` for no route, 413 for a body over the HTTP
 * API's 10 MB payload limit, 403 `{"message":"Forbidden"}` for an IAM request it refuses, 500
 * `{"message":"Internal Server Error"}` when the function throws.
 *
 * NOTE: a local server is reachable by the browser of whoever runs it: a request that names a host other than this
 * machine (DNS rebinding) or carries an `Origin` / cross-site `Sec-Fetch-Site` header (a web page's fetch or form) is
 * refused 403 before any route runs, so no page can act as the local principal.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lambdaContext } from '@diagnosis/devkit';
import { buildHttpApiEvent, pathOf } from './http-api-event.ts';
import { type IamAuthorizerContext, PRINCIPAL_HEADER, parseLocalPrincipal } from './local-principal.ts';
import { matchRoute, type ServeRoute } from './serve-routes.ts';

/** API Gateway HTTP API's payload limit. */
const MAX_REQUEST_BYTES = 10 * 1024 * 1024;
/** API Gateway HTTP API's integration timeout: a function's context counts down from it. */
const INTEGRATION_TIMEOUT_MS = 30_000;

export interface ServeServerOptions {
  host: string;
  port: number;
  routes: readonly ServeRoute[];
  /** Who an IAM route's caller is, unless a loopback request names another principal in the header. */
  principal: IamAuthorizerContext;
  /** Whether the server is bound to loopback only (then the principal header is honoured). */
  loopback: boolean;
  /** One line per request (method, path, status, function, time): no query string, no body, no header. */
  onRequest?: (line: string) => void;
  /** A function threw (its class only). */
  onHandlerError?: (functionName: string, error: unknown) => void;
  now?: () => number;
}

export interface ServeServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOOPBACK_HOST = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])(:\d{1,5})?$/i;

export function isLoopbackAddress(host: string): boolean {
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '::1' || host === 'localhost';
}

function gatewayAnswer(response: ServerResponse, status: number, message: string): number {
  const body = JSON.stringify({ message });
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
  return status;
}

/** Writes a function's answer as API Gateway does (payload 2.0): a structured result, or any value as JSON, 200. */
function writeResult(response: ServerResponse, result: unknown): number {
  const structured =
    typeof result === 'object' && result !== null && typeof (result as { statusCode?: unknown }).statusCode === 'number'
      ? (result as {
          statusCode: number;
          headers?: Record<string, string | number | boolean>;
          cookies?: string[];
          body?: string;
          isBase64Encoded?: boolean;
        })
      : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(result ?? null) };
  const body =
    structured.body === undefined
      ? Buffer.alloc(0)
      : Buffer.from(structured.body, structured.isBase64Encoded === true ? 'base64' : 'utf8');
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(structured.headers ?? {})) headers[name.toLowerCase()] = String(value);
  if (structured.cookies !== undefined && structured.cookies.length > 0) headers['set-cookie'] = structured.cookies;
  headers['content-length'] = String(body.length);
  response.writeHead(structured.statusCode, headers);
  response.end(body);
  return structured.statusCode;
}

function readBody(request: IncomingMessage): Promise<Buffer | 'TOO_LARGE'> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > MAX_REQUEST_BYTES) {
      resolve('TOO_LARGE');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) over = true;
      if (!over) chunks.push(chunk);
    });
    request.on('end', () => resolve(over ? 'TOO_LARGE' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** Starts the server; `close()` stops it and ends every open connection. */
export async function startServeServer(options: ServeServerOptions): Promise<ServeServer> {
  const now = options.now ?? Date.now;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<number> => {
    const method = request.method ?? 'GET';
    const target = request.url ?? '/';
    if (options.loopback && !LOOPBACK_HOST.test(request.headers.host ?? ''))
      return gatewayAnswer(response, 403, 'Forbidden');
    if (request.headers.origin !== undefined || request.headers['sec-fetch-site'] === 'cross-site') {
      return gatewayAnswer(response, 403, 'Forbidden');
    }
    const body = await readBody(request);
    if (body === 'TOO_LARGE') return gatewayAnswer(response, 413, 'Request Entity Too Large');
    const matched = matchRoute(options.routes, method, pathOf(target));
    if (matched === null) return gatewayAnswer(response, 404, 'Not Found');
    let iam: IamAuthorizerContext | undefined;
    const named = request.headers[PRINCIPAL_HEADER];
    if (named !== undefined && !options.loopback) return gatewayAnswer(response, 403, 'Forbidden');
    if (matched.route.auth === 'iam') {
      if (named === undefined) iam = options.principal;
      else {
        const parsed = typeof named === 'string' ? parseLocalPrincipal(named) : null;
        if (parsed === null) return gatewayAnswer(response, 403, 'Forbidden');
        iam = parsed;
      }
    }
    const event = buildHttpApiEvent(
      {
        method,
        target,
        rawHeaders: request.rawHeaders,
        body,
        sourceIp: request.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
      },
      matched,
      {
        ...(iam === undefined ? {} : { iam }),
        omitHeaders: [PRINCIPAL_HEADER],
        now: now(),
        domainName: request.headers.host ?? 'localhost',
      },
    );
    let result: unknown;
    try {
      result = await matched.route.handler(event, lambdaContext(INTEGRATION_TIMEOUT_MS, matched.route.functionName));
    } catch (error) {
      options.onHandlerError?.(matched.route.functionName, error);
      return gatewayAnswer(response, 500, 'Internal Server Error');
    }
    return writeResult(response, result);
  };
  const server = createServer((request, response) => {
    const started = now();
    handle(request, response).then(
      (status) => {
        const matched = matchRoute(options.routes, request.method ?? 'GET', pathOf(request.url ?? '/'));
        options.onRequest?.(
          `${request.method ?? '?'} ${pathOf(request.url ?? '/').slice(0, 200)} → ${status}${matched === null ? '' : ` ${matched.route.functionName}`} ${now() - started} ms`,
        );
      },
      (error: unknown) => {
        options.onHandlerError?.('server', error);
        if (!response.headersSent) gatewayAnswer(response, 500, 'Internal Server Error');
        else response.destroy();
      },
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
