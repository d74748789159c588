import {
  boundChangeText,
  boundChangeUrl,
  CHANGE_TEXT_CAPS,
  type ChangeSourceMapping,
  findGithubSource,
  GITHUB_REPOSITORY_PATTERN,
} from '@diagnosis/core';
import * as v from 'valibot';
import { type ChangeDecision, ISO_INSTANT, utcInstant } from './change-decision.ts';

const text = (max: number) => v.pipe(v.string(), v.maxLength(max));
const instant = v.pipe(
  v.string(),
  v.maxLength(64),
  v.regex(ISO_INSTANT),
  v.check((value) => Number.isFinite(Date.parse(value))),
);
const login = v.nullish(v.object({ login: text(100) }));

/**
 * GitHub's `deployment_status` webhook payload, as GitHub documents it: the status (`state`, `environment`,
 * `created_at`, `creator`, `description`, `target_url` / `log_url` / `environment_url`), its deployment (`sha`, `ref`,
 * `environment`, `creator`, `description`) and the repository (`full_name`). Only the fields read are checked (GitHub
 * adds fields).
 */
export const deploymentStatusSchema = v.object({
  action: v.optional(text(50)),
  deployment_status: v.object({
    state: v.picklist(['success', 'failure', 'error', 'inactive', 'in_progress', 'queued', 'pending']),
    environment: v.optional(v.nullable(text(255))),
    description: v.optional(v.nullable(text(20_000))),
    created_at: instant,
    creator: login,
    target_url: v.optional(v.nullable(text(5_000))),
    log_url: v.optional(v.nullable(text(5_000))),
    environment_url: v.optional(v.nullable(text(5_000))),
  }),
  deployment: v.object({
    sha: v.optional(v.nullable(text(64))),
    ref: v.optional(v.nullable(text(1_000))),
    environment: v.optional(v.nullable(text(255))),
    description: v.optional(v.nullable(text(20_000))),
    creator: login,
  }),
  repository: v.object({ full_name: v.pipe(v.string(), v.regex(GITHUB_REPOSITORY_PATTERN)) }),
  sender: login,
});
export type DeploymentStatusEvent = v.InferOutput<typeof deploymentStatusSchema>;

/**
 * The states that say a deployment landed: `success` (it reached its environment), or `failure` / `error` (it was
 * tried there, and may have left part of it). The others (`queued`, `pending`, `in_progress`, `inactive`) change
 * nothing yet, or say an older deployment was replaced.
 */
const LANDED = new Set(['success', 'failure', 'error']);

/**
 * A `deployment_status` as a change: a deploy of the mapping's service when the repository is mapped (by one of the
 * mappings whose secret the request proved: `granted`), the environment is one the mapping takes, and the state says
 * it landed. When it landed is the status's `created_at` (when the deployment reached its environment), never the
 * commit's or the merge's time. The event id is GitHub's delivery id (`X-GitHub-Delivery`).
 */
export function deploymentStatusChangeOf(
  event: DeploymentStatusEvent,
  deliveryId: string,
  mappings: readonly ChangeSourceMapping[],
  receivedAt: number,
): ChangeDecision {
  const status = event.deployment_status;
  if (!LANDED.has(status.state)) return { kind: 'ignored', code: 'NOT_A_CHANGE' };
  const mapping = findGithubSource(mappings, event.repository.full_name);
  if (mapping === undefined) return { kind: 'ignored', code: 'UNMAPPED' };
  const environment = status.environment ?? event.deployment.environment ?? null;
  if (mapping.environments !== undefined && (environment === null || !mapping.environments.includes(environment))) {
    return { kind: 'ignored', code: 'UNMAPPED' };
  }
  const { sha, ref } = event.deployment;
  const shortSha = typeof sha === 'string' && sha !== '' ? sha.slice(0, 12) : null;
  const named = ref !== null && ref !== undefined && ref !== '' && ref !== sha ? ref : null;
  const description = status.description || event.deployment.description || '';
  return {
    kind: 'change',
    change: {
      enterpriseId: mapping.enterpriseId,
      source: 'github',
      origin: mapping.repository.toLowerCase(),
      eventId: deliveryId,
      at: utcInstant(Date.parse(status.created_at)),
      service: mapping.service,
      environment: boundChangeText(environment, CHANGE_TEXT_CAPS.environment),
      kind: 'deploy',
      ref: boundChangeText(
        named === null ? shortSha : shortSha === null ? named : `${named}@${shortSha}`,
        CHANGE_TEXT_CAPS.ref,
      ),
      actor: boundChangeText(
        status.creator?.login ?? event.deployment.creator?.login ?? event.sender?.login,
        CHANGE_TEXT_CAPS.actor,
      ),
      summary:
        boundChangeText(
          `${event.repository.full_name} 部署到 ${environment ?? '（未指明环境）'}：${status.state}${description === '' ? '' : `，${description}`}`,
          CHANGE_TEXT_CAPS.summary,
        ) ?? status.state,
      url: boundChangeUrl(status.log_url || status.target_url || status.environment_url),
      receivedAt: utcInstant(receivedAt),
    },
  };
}
