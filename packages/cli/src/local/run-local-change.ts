/**
 * One change event on this machine through the real change functions: a change webhook's body (the documented
 * generic body or a Flux event) or GitHub's `deployment_status` goes to the ChangeWebhook handler, signed here as its
 * sender would sign it (the source's `hmac` or `bearer`, GitHub's `X-Hub-Signature-256`) with a secret made up for
 * this one command; a CloudTrail call as EventBridge delivers it goes to the ChangeEvents handler. The stage file's
 * `changes.sources` map it; it is recorded on DynamoDB Local, where later local runs of its enterprise read it.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ChangeSourceMapping, WebhookChangeSource } from '@diagnosis/core';
import { createDynamoChangeStore } from '@diagnosis/core/store';
import { lambdaContext } from '@diagnosis/devkit';
import { createChangeEventHandler, createChangeWebhookHandler, createObservability } from '@diagnosis/functions';
import { CliError, type CliIo, EXIT, printable } from '../command-line.ts';
import { localLogDestination } from './local-data.ts';
import { startLocalRuntime } from './local-runtime.ts';
import { loadStageChangeSources, stageFileName } from './stage-file.ts';

/** Which sender a change file is from, by its documented shape. */
type ChangeFileKind = 'generic' | 'flux' | 'github' | 'cloudtrail';

export interface LocalChangeOptions {
  eventPath: string;
  /** The stage file whose `changes.sources` map the event. */
  stage: string;
  /** The change webhook to post a generic or Flux body to (its id); default: the one source that takes it. */
  source?: string;
  /** When the event arrives (epoch ms); undefined: a second after the change landed. */
  receivedAt?: number;
  json: boolean;
}

const MAX_EVENT_FILE_BYTES = 256 * 1024;

/** Reads a change file: JSON, at most 256 KiB, its raw text kept (a webhook is signed over its bytes). */
function loadChangeFile(path: string): { raw: string; json: Record<string, unknown>; kind: ChangeFileKind } {
  let raw: string;
  try {
    raw = readFileSync(resolve(path), 'utf8');
  } catch {
    throw new CliError(EXIT.USAGE, `cannot read the change file '${printable(path)}'`);
  }
  if (Buffer.byteLength(raw) > MAX_EVENT_FILE_BYTES) throw new CliError(EXIT.USAGE, 'the change file is over 256 KiB');
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new CliError(EXIT.USAGE, 'the change file is not JSON');
  }
  const kind = kindOf(json);
  if (kind === null) {
    throw new CliError(
      EXIT.USAGE,
      "not a change: the generic body, a Flux event, GitHub's deployment_status or a CloudTrail call via EventBridge",
    );
  }
  return { raw, json: json as Record<string, unknown>, kind };
}

function kindOf(json: unknown): ChangeFileKind | null {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return null;
  const event = json as Record<string, unknown>;
  if (event['detail-type'] === 'AWS API Call via CloudTrail') return 'cloudtrail';
  if (isObject(event.deployment_status) && isObject(event.deployment)) return 'github';
  if (isObject(event.involvedObject)) return 'flux';
  if (typeof event.kind === 'string' && typeof event.service === 'string') return 'generic';
  return null;
}

const isObject = (value: unknown) => typeof value === 'object' && value !== null;

/** When the change landed, as its sender writes it; NaN when it names none. */
function landedAt(json: Record<string, unknown>, kind: ChangeFileKind): number {
  const time =
    kind === 'generic'
      ? json.time
      : kind === 'flux'
        ? json.timestamp
        : kind === 'github'
          ? (json.deployment_status as { created_at?: unknown }).created_at
          : ((json.detail as { eventTime?: unknown } | undefined)?.eventTime ?? json.time);
  return typeof time === 'string' ? Date.parse(time) : Number.NaN;
}

/** The change webhook a generic or Flux body goes to: the one named, else the only source of its format and service. */
function webhookSourceFor(
  sources: readonly ChangeSourceMapping[],
  file: { json: Record<string, unknown>; kind: 'generic' | 'flux' },
  named: string | undefined,
): WebhookChangeSource {
  const webhooks = sources.filter((entry): entry is WebhookChangeSource => entry.source === 'webhook');
  if (named !== undefined) {
    const source = webhooks.find((entry) => entry.id === named);
    if (source === undefined)
      throw new CliError(EXIT.USAGE, `no change webhook '${printable(named)}' in the stage file`);
    return source;
  }
  const service =
    file.kind === 'generic' ? file.json.service : (file.json.involvedObject as { name?: unknown } | undefined)?.name;
  const fitting = webhooks.filter(
    (entry) => entry.format === file.kind && typeof service === 'string' && entry.services.includes(service),
  );
  const [only] = fitting;
  if (only !== undefined && fitting.length === 1) return only;
  if (fitting.length === 0) {
    throw new CliError(EXIT.USAGE, `no ${file.kind} change webhook of the stage file takes this service; see --source`);
  }
  const ids = fitting.map((entry) => entry.id).join(', ');
  throw new CliError(EXIT.USAGE, `several change webhooks take this service (${ids}): name one with --source`);
}

/** Records the change file and prints its outcome; returns the exit code (0 recorded, duplicate or ignored; 1 refused). */
export async function runLocalChange(options: LocalChangeOptions, io: CliIo): Promise<number> {
  const file = loadChangeFile(options.eventPath);
  const sources = loadStageChangeSources(options.stage);
  if (sources.length === 0) throw new CliError(EXIT.CONFIG, `${stageFileName(options.stage)} maps no change sources`);
  const landed = landedAt(file.json, file.kind);
  const receivedAt = options.receivedAt ?? landed + 1_000;
  if (!Number.isFinite(receivedAt)) throw new CliError(EXIT.USAGE, 'the change names no time; give --received-at');
  // NOTE: every secret is made up for this one command: the event is signed here, as its sender would sign it.
  const secrets = new Map(
    [...new Set(sources.flatMap((entry) => (entry.source === 'cloudtrail' ? [] : [entry.secret])))].map((name) => [
      name,
      [randomBytes(24).toString('hex')],
    ]),
  );
  const runtime = await startLocalRuntime(io.env);
  try {
    const store = createDynamoChangeStore({ client: runtime.client, tableName: runtime.tableName });
    const log = localLogDestination(io.env).write;
    const now = () => receivedAt;
    let status: number;
    let body: Record<string, unknown>;
    if (file.kind === 'cloudtrail') {
      const handler = createChangeEventHandler({ sources, store, now }, createObservability('ChangeEvents', log));
      body = { ...(await handler(file.json, lambdaContext(10_000))) };
      status = 202;
    } else {
      const route = routeOf(file, sources, options.source, secrets);
      const handler = createChangeWebhookHandler(
        { sources, secrets, store, now },
        createObservability('ChangeWebhook', log),
      );
      const response = (await handler(
        httpEvent(route.path, route.headers, file.raw) as never,
        lambdaContext(10_000),
      )) as {
        statusCode: number;
        body: string;
      };
      status = response.statusCode;
      body = JSON.parse(response.body);
    }
    if (options.json) io.stdout(`${JSON.stringify({ status, ...body })}\n`);
    else io.stdout(`${describeAnswer(file.kind, status, body)}\n`);
    return status < 300 ? EXIT.OK : EXIT.FAILED;
  } finally {
    await runtime.stop();
  }
}

function routeOf(
  file: ReturnType<typeof loadChangeFile>,
  sources: readonly ChangeSourceMapping[],
  named: string | undefined,
  secrets: ReadonlyMap<string, readonly string[]>,
): { path: string; headers: Record<string, string> } {
  const sign = (secret: string) => createHmac('sha256', secret).update(file.raw).digest('hex');
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (file.kind === 'github') {
    const github = sources.find((entry) => entry.source === 'github');
    const secret = github === undefined ? undefined : secrets.get(github.secret)?.[0];
    if (secret === undefined) throw new CliError(EXIT.CONFIG, 'the stage file maps no GitHub repository');
    headers['x-github-event'] = 'deployment_status';
    headers['x-github-delivery'] = randomUUID();
    headers['x-hub-signature-256'] = `sha256=${sign(secret)}`;
    return { path: 'github', headers };
  }
  if (file.kind === 'cloudtrail') throw new Error('CloudTrail goes to ChangeEvents');
  const source = webhookSourceFor(sources, { json: file.json, kind: file.kind }, named);
  const secret = secrets.get(source.secret)?.[0] ?? '';
  if (source.auth === 'bearer') headers.authorization = `Bearer ${secret}`;
  else headers['x-signature'] = `sha256=${sign(secret)}`;
  return { path: source.id, headers };
}

function httpEvent(source: string, headers: Record<string, string>, body: string) {
  return {
    version: '2.0',
    routeKey: 'POST /changes/{source}',
    rawPath: `/changes/${source}`,
    rawQueryString: '',
    headers,
    requestContext: { http: { method: 'POST', path: `/changes/${source}` } },
    pathParameters: { source },
    body,
    isBase64Encoded: false,
  };
}

function describeAnswer(kind: ChangeFileKind, status: number, body: Record<string, unknown>): string {
  const error = body.error as { code?: unknown; message?: unknown } | undefined;
  if (error !== undefined) {
    return `${kind} change refused (HTTP ${status}): ${printable(String(error.code))}: ${printable(String(error.message))}`;
  }
  const id = typeof body.changeId === 'string' ? ` ${body.changeId}` : '';
  const code = typeof body.code === 'string' ? ` (${body.code})` : '';
  return `${kind} change: ${String(body.outcome)}${id}${code}`;
}
