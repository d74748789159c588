import { safeErrorName } from '@diagnosis/core';
import type { DeliveryPreview } from '@diagnosis/functions';
import { CliError, EXIT } from '../command-line.ts';

/**
 * Where `--post-slack` may post: https anywhere, plain http only to this machine (a local test receiver). Parsed
 * before anything runs, so a bad URL costs no run.
 */
export function parseSlackPostUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(EXIT.USAGE, '--post-slack takes a URL, e.g. https://hooks.slack.com/services/…');
  }
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (
    url.username !== '' ||
    url.password !== '' ||
    !(url.protocol === 'https:' || (url.protocol === 'http:' && local))
  ) {
    throw new CliError(EXIT.USAGE, '--post-slack takes an https URL (plain http only to this machine), no credentials');
  }
  return url;
}

export function previewHeading(preview: DeliveryPreview): string {
  const what =
    preview.type === 'slack'
      ? 'Slack message'
      : preview.type === 'sns'
        ? 'SNS (email form)'
        : preview.type === 'teams'
          ? 'Teams Adaptive Card'
          : preview.type === 'pagerduty'
            ? 'PagerDuty note'
            : 'webhook request';
  return `── ${preview.type} destination "${preview.destinationId}": ${what} ──`;
}

const SLACK_POST_TIMEOUT_MS = 10_000;

/**
 * Posts the first Slack preview to the URL, as DeliverResults would. NOTE: only the URL's origin is ever printed: a
 * Slack incoming webhook's path is its secret. A refused or failed post is the command's failure, named by class.
 */
export async function postSlack(
  text: string,
  previews: readonly DeliveryPreview[],
): Promise<{ origin: string; status: number }> {
  const url = parseSlackPostUrl(text);
  const slack = previews.find((preview) => preview.type === 'slack');
  if (slack === undefined) throw new CliError(EXIT.FAILED, 'the run has no Slack message to post (it has not ended)');
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(slack.payload),
      signal: AbortSignal.timeout(SLACK_POST_TIMEOUT_MS),
      redirect: 'error',
    });
    await response.body?.cancel();
  } catch (error) {
    throw new CliError(EXIT.FAILED, `could not post the Slack message to ${url.origin} (${safeErrorName(error)})`);
  }
  if (!response.ok) throw new CliError(EXIT.FAILED, `${url.origin} refused the Slack message: HTTP ${response.status}`);
  return { origin: url.origin, status: response.status };
}
