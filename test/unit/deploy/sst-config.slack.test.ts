import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { SLACK_CARD_STREAM_BATCHING, SLACK_CARD_STREAM_FILTERS } from '../../../deploy/slack.ts';
import { RATING_SETTING_NAMES, RATING_TABLE_ACCESS } from '../../../functions/ratings/rating-access.ts';
import { type FakePlatform, runSstConfigOn } from '../../support/fake-sst-platform.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** `sst.config.ts`'s real `run()` on a stage file with a Slack app (see sst-config.test.ts for the stand-in). */
const runConfig = (stageFile: unknown): Promise<FakePlatform> => runSstConfigOn(stageFile, roots);

const app = {
  id: 'e1001',
  enterpriseId: 'E1001',
  teamId: 'T0E1001AA',
  channels: ['C0E1001AA'],
  alertChannel: 'C0E1001AA',
  botTokenSecret: 'SlackE1001BotToken',
  signingSecretSecret: 'SlackE1001SigningSecret',
};

describe('sst.config.ts with a Slack app', async () => {
  const platform = await runConfig({ settings: {}, slack: { apps: [app] } });
  const functions = platform.ofType('sst.aws.Function');
  const requests = functions.find((fn) => fn.name === 'SlackRequests');
  const work = functions.find((fn) => fn.name === 'SlackWork');

  it('declares the app’s two secrets and links them to both Slack functions', () => {
    const secrets = platform.ofType('sst.Secret').map((secret) => secret.name);
    expect(secrets).toEqual(expect.arrayContaining(['SlackE1001BotToken', 'SlackE1001SigningSecret']));
    expect(requests).toBeDefined();
    expect(work).toBeDefined();
    expect(JSON.parse(String((requests?.args.environment as Record<string, string> | undefined)?.SLACK_APPS))).toEqual([
      app,
    ]);
  });

  it('routes POST /slack/{appId}/{kind} on the IngressApi to SlackRequests without IAM (Slack signs its requests)', () => {
    const route = platform.routes.find((entry) => entry.route === 'POST /slack/{appId}/{kind}');
    expect(route).toBeDefined();
    expect(route?.args).toBeUndefined();
    expect(route?.api).toBe('IngressApi');
  });

  it('lets SlackRequests claim requests and queue work, and nothing else of the table', () => {
    const permissions = requests?.args.permissions as { actions: string[]; conditions?: { values: string[] }[] }[];
    const table = permissions.filter((permission) =>
      permission.actions.some((action) => action.startsWith('dynamodb:')),
    );
    expect(table).toEqual([expect.objectContaining({ actions: ['dynamodb:PutItem'] })]);
    expect(table[0]?.conditions?.[0]?.values).toEqual(['SLACKREQ#*']);
  });

  it('lets SlackWork write every item its cards keep: the card, its message and the channel’s post slot', () => {
    const grants = (work?.args.permissions ?? []) as { actions: string[]; conditions?: { values: string[] }[] }[];
    const writable = (partition: string) =>
      ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'].every((action) =>
        grants.some(
          (grant) => grant.actions.includes(action) && (grant.conditions?.[0]?.values ?? []).includes(partition),
        ),
      );
    expect(
      Object.fromEntries(
        ['SLACKCARD#*', 'SLACKMSG#*', 'SLACKCHAN#*'].map((partition) => [partition, writable(partition)]),
      ),
    ).toEqual({ 'SLACKCARD#*': true, 'SLACKMSG#*': true, 'SLACKCHAN#*': true });
  });

  it('lets SlackWork do to the table all a rating does, as RunFeedback may: a Slack rating keeps the memory too', () => {
    const feedback = functions.find((fn) => fn.name === 'RunFeedback');
    const covers = (fn: typeof work, action: string, partition: string) =>
      ((fn?.args.permissions ?? []) as { actions: string[]; conditions?: { values: string[] }[] }[]).some(
        (permission) =>
          permission.actions.includes(`dynamodb:${action}`) &&
          (permission.conditions?.[0]?.values ?? []).includes(partition),
      );
    const rating = RATING_TABLE_ACCESS.flatMap(({ actions, partitions }) =>
      actions.flatMap((action) => partitions.map((partition) => `${action} ${partition}`)),
    );
    expect(rating).toContain('DeleteItem PAST#*');
    const missing = (fn: typeof work) =>
      rating.filter((access) => !covers(fn, ...(access.split(' ') as [string, string])));
    expect({ SlackWork: missing(work), RunFeedback: missing(feedback) }).toEqual({ SlackWork: [], RunFeedback: [] });
  });

  it('gives SlackWork every rating setting the stage file sets, as RunFeedback gets it', async () => {
    const retentions = {
      REASONING_RETENTION_DAYS: 20,
      PSEUDONYM_RETENTION_DAYS: 25,
      PAST_INCIDENT_RETENTION_DAYS: 30,
      MASKING: 'identifiers',
      MASKING_PATTERNS: [{ kind: 'customer_id', pattern: 'CUST-[0-9]{6}' }],
    };
    const configured = await runConfig({ settings: retentions, slack: { apps: [app] } });
    const environmentOf = (name: string) =>
      configured.ofType('sst.aws.Function').find((fn) => fn.name === name)?.args.environment as Record<string, string>;
    const ratingSettings = (name: string) =>
      Object.fromEntries(RATING_SETTING_NAMES.map((key) => [key, environmentOf(name)[key]]));
    expect(ratingSettings('RunFeedback')).toMatchObject({ PAST_INCIDENT_RETENTION_DAYS: '30' });
    expect(ratingSettings('SlackWork')).toEqual(ratingSettings('RunFeedback'));
  });

  it('creates no Slack function, route or secret for a stage without apps', async () => {
    const without = await runConfig({ settings: {} });
    expect(without.ofType('sst.aws.Function').map((fn) => fn.name)).not.toContain('SlackRequests');
    expect(without.routes.map((entry) => entry.route)).not.toContain('POST /slack/{appId}/{kind}');
  });
});

describe('sst.config.ts: the Slack card on the table stream', async () => {
  const platform = await runConfig({ settings: {}, slack: { apps: [app] } });
  const streams = platform.subscriptions.filter(
    (entry) => entry.source === 'DiagnosisTable' && entry.method === 'subscribe',
  );
  const cards = streams.find((entry) => entry.args[0] === 'SlackCards');

  it('streams the run items into SlackWork with no batching window, so the first and final cards never wait on one', () => {
    const options = cards?.args[2] as {
      filters: unknown[];
      transform: { eventSourceMapping: (args: Record<string, unknown>) => void };
    };
    expect(options.filters).toEqual([...SLACK_CARD_STREAM_FILTERS]);
    const mapping: Record<string, unknown> = {};
    options.transform.eventSourceMapping(mapping);
    expect(mapping).toEqual({
      ...SLACK_CARD_STREAM_BATCHING,
      functionResponseTypes: ['ReportBatchItemFailures'],
      bisectBatchOnFunctionError: true,
      maximumRetryAttempts: 3,
    });
    expect(mapping.maximumBatchingWindowInSeconds).toBe(0);
  });

  it('keeps the table stream at two readers (the most a shard serves before Lambda’s readers are throttled)', () => {
    expect(streams.map((entry) => entry.args[0]).sort()).toEqual(['RunFinished', 'SlackCards']);
  });
});
