import { describe, expect, it } from 'vitest';
import { describeChange } from '../../../../functions/delivery/change-lines.ts';
import { buildPagerDutyNote } from '../../../../functions/delivery/pagerduty-note.ts';
import { buildRunFinishedEvent, envelopeOf } from '../../../../functions/delivery/run-finished-event.ts';
import { buildSlackMessage } from '../../../../functions/delivery/slack-message.ts';
import { finishedRun } from '../../../support/finished-runs.ts';
import { resultEventValidator } from '../../../support/result-event-schema.ts';

const CHANGE = {
  change_id: 'chg_abcdefghijkl',
  at: '2026-11-30T06:01:40.000Z',
  service: 'payment-gateway',
  kind: 'deploy',
  ref: 'v3.8.0',
  summary: 'Argo CD synced <!channel> payment-gateway',
  url: 'https://argocd.example.com/applications/payment-gateway?a=1&b=2',
  placement: 'BEFORE_SYMPTOM',
  tool_call_ids: ['call_2'],
};
const META = { id: '6a7e8feb-b491-4cf7-a9f1-bf3703467718', time: '2026-11-30T06:10:31Z', account: '1', region: 'x' };

async function withChanges(changes: unknown[], trigger?: { source: string; incidentKey: string }) {
  const run = await finishedRun('PUBLISHED');
  const report = { ...(run.report as object), changes };
  return buildRunFinishedEvent({ ...run, report, ...(trigger === undefined ? {} : { trigger }) });
}

describe('describeChange', () => {
  it('says what changed, when it landed and where code placed it', () => {
    expect(
      describeChange({
        changeId: 'chg_abcdefghijkl',
        at: '2026-11-30T06:01:40.000Z',
        service: 'payment-gateway',
        kind: 'deploy',
        ref: 'v3.8.0',
        summary: 'Argo CD synced',
        placement: 'BEFORE_SYMPTOM',
        url: null,
      }),
    ).toBe('deploy payment-gateway v3.8.0, landed 2026-11-30 06:01 UTC, before the symptom began: Argo CD synced');
  });
});

describe('a cited change in the result event and where responders look', () => {
  it('carries each change of a published report with its link, valid against the committed schema', async () => {
    const event = await withChanges([CHANGE]);
    expect(event.detail.changes).toEqual([
      {
        changeId: 'chg_abcdefghijkl',
        at: '2026-11-30T06:01:40.000Z',
        service: 'payment-gateway',
        kind: 'deploy',
        ref: 'v3.8.0',
        summary: 'Argo CD synced <!channel> payment-gateway',
        placement: 'BEFORE_SYMPTOM',
        url: 'https://argocd.example.com/applications/payment-gateway?a=1&b=2',
      },
    ]);
    const validate = resultEventValidator();
    expect(validate(envelopeOf(event, META)), JSON.stringify(validate.errors)).toBe(true);
  });

  it('drops a link that could break a chat’s link syntax, and carries no change of an unpublished run', async () => {
    const event = await withChanges([{ ...CHANGE, url: 'https://x.example.com/<phone:abcde>' }]);
    expect(event.detail.changes[0]?.url).toBeNull();
    const fallback = await finishedRun('FALLBACK');
    expect(
      buildRunFinishedEvent({ ...fallback, report: { ...(fallback.report as object), changes: [CHANGE] } }).detail
        .changes,
    ).toEqual([]);
  });

  it('shows the change on the Slack card with its link, the sender’s text escaped', async () => {
    const message = JSON.stringify(buildSlackMessage((await withChanges([CHANGE])).detail));
    expect(message).toContain('*Changes cited*');
    expect(message).toContain('Argo CD synced &lt;!channel&gt; payment-gateway');
    expect(message).toContain('<https://argocd.example.com/applications/payment-gateway?a=1&amp;b=2|open>');
    expect(message).not.toContain('<!channel>');
  });

  it('adds the change and its link to the PagerDuty note', async () => {
    const event = await withChanges([CHANGE], { source: 'pagerduty', incidentKey: 'Q1R2DLCB21K7JS' });
    const content = JSON.parse(buildPagerDutyNote(event.detail)?.body ?? '{}').note.content as string;
    expect(content).toContain('Changes cited:');
    expect(content).toContain(
      '- deploy payment-gateway v3.8.0, landed 2026-11-30 06:01 UTC, before the symptom began: Argo CD synced',
    );
    expect(content).toContain('https://argocd.example.com/applications/payment-gateway?a=1&b=2');
  });
});
