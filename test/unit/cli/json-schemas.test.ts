import {
  FEEDBACK_LIMITS,
  FEEDBACK_VERDICTS,
  INCIDENT_EVENT_KINDS,
  PSEUDONYM_PATTERN,
  RUN_ID_PATTERN,
  RUN_STATUSES,
  STATUS_WORDS,
  STOP_REASONS,
} from '@diagnosis/core';
import { NO_VERDICT_STATES, PROCESS_CHANGE_FIGURES, VERDICT_POINTS } from '@diagnosis/eval';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES } from '../../../functions/delivery/delivery-store.ts';
import {
  DESTINATION_ID_PATTERN,
  DESTINATION_TYPES,
  MAX_DESTINATIONS_PER_ENTERPRISE,
} from '../../../functions/delivery/destinations.ts';
import { previewDeliveries } from '../../../functions/delivery/preview-deliveries.ts';
import { REVEAL_OUTCOMES } from '../../../functions/delivery/reveal-run-result.ts';
import { buildRunFinishedEvent } from '../../../functions/delivery/run-finished-event.ts';
import { SLACK_LIMITS } from '../../../functions/delivery/slack-message.ts';
import { SNS_LIMITS } from '../../../functions/delivery/sns-message.ts';
import {
  DELIVERY_ID_HEADER,
  SIGNATURE_HEADER,
  SIGNATURE_VERSION,
  TIMESTAMP_HEADER,
} from '../../../functions/delivery/webhook-request.ts';
import { TRIGGER_OUTCOMES } from '../../../functions/lambda/metric-names.ts';
import { IGNORED_CODES } from '../../../functions/triggers/incident-facts.ts';
import { PSEUDONYM_KIND_PATTERN } from '../../../packages/core/src/config/masking-settings.ts';
import { diagnosisDraftJsonSchema } from '../../../packages/core/src/draft/diagnosis-draft.ts';
import { TOOL_NAMES } from '../../../packages/core/src/run/tool-name.ts';
import { IDENTIFIER_KINDS } from '../../../packages/core/src/tools/masking/identifier-detectors.ts';
import { MASKING_LIMITS } from '../../../packages/core/src/tools/masking/masking-session.ts';
import { type FinishedKind, finishedRun } from '../../support/finished-runs.ts';
import { loadSchema, schemaErrors } from '../../support/json-schemas.ts';
import { resultEventValidator } from '../../support/result-event-schema.ts';

type FeedbackSchema = {
  maxItems: number;
  items: { properties: { rootCause: { maxLength: number }; note: { maxLength: number } } };
};

const defs = loadSchema('diagnosis-result').$defs as Record<string, { enum?: unknown[] }>;

/** A part of a committed schema by its path (`$defs.entry.properties.token.pattern`; array items by index). */
const at = (name: Parameters<typeof loadSchema>[0], path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], loadSchema(name));

describe('the committed JSON Schemas (docs/schemas)', () => {
  it('carry the Draft’s own generated schema and the code’s own lists, so they cannot drift', () => {
    const { $schema: _dialect, ...draft } = diagnosisDraftJsonSchema() as Record<string, unknown>;
    expect(defs.draft).toEqual(draft);
    expect(defs.stopReason?.enum).toEqual([...STOP_REASONS]);
    expect(defs.toolName?.enum).toEqual([...TOOL_NAMES]);
    const resource = loadSchema('run-resource') as { properties: { status: { enum: unknown[] } } };
    expect(resource.properties.status.enum).toEqual([...STATUS_WORDS]);
  });

  it("bound the run resource's feedback as the store does (every entry a run holds, the texts as stored, masked)", () => {
    const feedback = (loadSchema('run-resource') as { properties: { feedback: FeedbackSchema } }).properties.feedback;
    expect(feedback.maxItems).toBe(FEEDBACK_LIMITS.storedPerRun);
    expect(FEEDBACK_LIMITS.storedPerRun).toBe(FEEDBACK_LIMITS.entriesPerRun * FEEDBACK_LIMITS.ratingsPerCaller);
    expect(feedback.items.properties.rootCause.maxLength).toBe(FEEDBACK_LIMITS.maskedRootCauseChars);
    expect(feedback.items.properties.note.maxLength).toBe(FEEDBACK_LIMITS.maskedNoteChars);
  });

  it('refuse what the output never is: an unknown status, a missing field, an unknown key', () => {
    expect(schemaErrors('run-summaries', [{ runId: 'r', status: 'DONE' }]).length).toBeGreaterThan(0);
    const summary = {
      runId: 'r',
      status: 'PUBLISHED',
      stopReason: null,
      errorCode: null,
      totalTokens: 1,
      createdAt: '2026-12-01T00:00:00.000Z',
      enterpriseId: 'E1001',
      sessionId: 's',
      query: 'q',
    };
    expect(schemaErrors('run-summaries', [summary])).toEqual([]);
    // `runs --json` lists a delivered run's deliveries (packages/cli/src/commands/runs.ts, RunSummary.delivery).
    const delivery = [
      { destinationId: 'oncall-slack', status: 'DELIVERED', attempts: 1, lastError: null },
      { destinationId: 'audit-hook', status: 'DEAD_LETTERED', attempts: 5, lastError: 'HTTP_500' },
    ];
    expect(schemaErrors('run-summaries', [{ ...summary, delivery }])).toEqual([]);
    const summaries = loadSchema('run-summaries') as {
      items: { properties: { delivery: { items: { properties: { status: { enum: string[] } } } } } };
    };
    expect(summaries.items.properties.delivery.items.properties.status.enum).toEqual([...DELIVERY_STATUSES]);
    expect(schemaErrors('run-summaries', [{ ...summary, delivery: [{ ...delivery[0], status: 'SENT' }] }])).toEqual([
      '/0/delivery/0/status must be equal to one of the allowed values',
    ]);
    expect(schemaErrors('run-summaries', [{ ...summary, secret: 'x' }])).toEqual([
      '/0 must NOT have additional properties',
    ]);
    expect(schemaErrors('run-summaries', [{ ...summary, createdAt: 'yesterday' }])).toEqual([
      '/0/createdAt must match format "date-time"',
    ]);
  });

  it('refuse a rating whose time is not an ISO date-time, as the store writes it', () => {
    const rating = {
      verdict: 'CORRECT',
      rootCause: null,
      note: null,
      caller: 'arn:aws:iam::123456789012:user/responder',
      sequence: 1,
      current: true,
      createdAt: '2026-12-01T00:00:00.000Z',
    };
    expect(schemaErrors('run-feedback', [rating])).toEqual([]);
    expect(schemaErrors('run-feedback', { runId: 'r', created: true, feedback: rating })).toEqual([]);
    expect(schemaErrors('run-feedback', [{ ...rating, createdAt: 'yesterday' }])).toContain(
      '/0/createdAt must match format "date-time"',
    );
    expect(
      schemaErrors('run-feedback', { runId: 'r', created: true, feedback: { ...rating, createdAt: 'yesterday' } }),
    ).toContain('/feedback/createdAt must match format "date-time"');
  });

  it("tie the run resource's feedback verdicts and the feedback command's run id to the code", () => {
    expect(at('run-resource', 'properties.feedback.items.properties.verdict.enum')).toEqual([...FEEDBACK_VERDICTS]);
    expect(at('run-feedback', '$defs.recorded.properties.runId.pattern')).toBe(RUN_ID_PATTERN.source);
    expect(at('run-feedback', '$defs.ratings.$ref')).toBe('run-resource.schema.json#/properties/feedback');
    expect(at('run-feedback', '$defs.recorded.properties.feedback.$ref')).toBe(
      'run-resource.schema.json#/properties/feedback/items',
    );
  });

  it("tie reveal's tokens, kinds and values to the masking code's own patterns, kinds and limits", () => {
    const reveal = (path: string) => at('reveal-entries', `$defs.${path}`);
    expect(reveal('entry.properties.token.pattern')).toBe(`^${PSEUDONYM_PATTERN.source}$`);
    expect(reveal('identifierKind.enum')).toEqual([...IDENTIFIER_KINDS]);
    expect(reveal('customKind.pattern')).toBe(PSEUDONYM_KIND_PATTERN.source);
    expect(reveal('entry.properties.value.maxLength')).toBe(MASKING_LIMITS.valueChars);
  });

  it("tie trigger's outcomes, codes, statuses, destinations and limits to the code's own", () => {
    const trigger = (path: string) => at('trigger-report', `$defs.${path}`);
    const local = (ref: unknown) => String(ref).replace('#/$defs/', '');
    const outcomes = (at('trigger-report', 'oneOf') as { $ref: string }[]).map(({ $ref }) => {
      const answer = local(trigger(`${local($ref)}.properties.trigger.$ref`));
      return trigger(`${answer}.properties.outcome.const`);
    });
    // A FAILED trigger throws (the command exits with one line on stderr): it never prints JSON.
    expect(outcomes).toEqual(TRIGGER_OUTCOMES.filter((outcome) => outcome !== 'FAILED'));
    expect(trigger('ignoredAnswer.properties.code.enum')).toEqual([...IGNORED_CODES]);
    expect(trigger('attachedAnswer.properties.kind.enum')).toEqual([...INCIDENT_EVENT_KINDS]);
    expect(at('run-resource', 'properties.incidentEvents.items.properties.kind.enum')).toEqual([
      ...INCIDENT_EVENT_KINDS,
    ]);
    expect(trigger('runStatus.enum')).toEqual([...RUN_STATUSES]);
    expect(trigger('runId.pattern')).toBe(RUN_ID_PATTERN.source);
    expect(trigger('started.properties.reveal.enum')).toEqual([...REVEAL_OUTCOMES]);
    expect(trigger('started.properties.deliveries.maxItems')).toBe(MAX_DESTINATIONS_PER_ENTERPRISE);
    expect(trigger('destinationId.pattern')).toBe(DESTINATION_ID_PATTERN.source);
    const deliveries = (trigger('delivery.oneOf') as { $ref: string }[]).map(({ $ref }) =>
      trigger(`${local($ref)}.properties.type.const`),
    );
    expect(deliveries).toEqual([...DESTINATION_TYPES]);
    expect(trigger('slackBlock.oneOf.0.properties.text.properties.text.maxLength')).toBe(SLACK_LIMITS.headerText);
    expect(trigger('slackBlock.oneOf.1.properties.text.$ref')).toBe('#/$defs/sectionText');
    expect(trigger('sectionText.oneOf.0.properties.text.maxLength')).toBe(SLACK_LIMITS.sectionText);
    expect(trigger('sectionText.oneOf.1.properties.text.maxLength')).toBe(SLACK_LIMITS.sectionText);
    expect(trigger('slackMessage.properties.text.maxLength')).toBe(SLACK_LIMITS.fallbackText);
    expect(trigger('slackMessage.properties.blocks.maxItems')).toBe(SLACK_LIMITS.blocks);
    expect(trigger('snsMessage.properties.subject.maxLength')).toBe(SNS_LIMITS.subject);
    expect(
      ['default', 'email', 'sms'].map((form) => trigger(`snsMessage.properties.message.properties.${form}.maxLength`)),
    ).toEqual([SNS_LIMITS.text, SNS_LIMITS.text, SNS_LIMITS.sms]);
    expect(Object.keys(trigger('webhookRequest.properties.headers.properties') as object)).toEqual([
      'content-type',
      'user-agent',
      TIMESTAMP_HEADER,
      SIGNATURE_HEADER,
      DELIVERY_ID_HEADER,
    ]);
    const signature = (trigger('webhookRequest.properties.headers.properties') as Record<string, { pattern: string }>)[
      SIGNATURE_HEADER
    ]?.pattern;
    expect(signature).toBe(`^${SIGNATURE_VERSION}=[0-9a-f]{64}$`);
  });

  it.each<FinishedKind>(['PUBLISHED', 'FALLBACK', 'FAILED', 'CANCELLED'])(
    "accept every destination's preview of a %s run as trigger --json prints it (the bin's stage files name none)",
    async (kind) => {
      const event = buildRunFinishedEvent(await finishedRun(kind));
      const previews = previewDeliveries(
        event,
        [
          { id: 'oncall', type: 'slack', secret: 'DestinationOncall' },
          { id: 'itsm', type: 'webhook', url: 'https://itsm.example.com/hooks/diagnosis', secret: 'DestinationItsm' },
          { id: 'mail', type: 'sns', emails: [] },
        ],
        Date.parse('2026-11-30T06:10:31Z'),
      );
      // NOTE: what run-local-trigger.ts prints: each preview without its terminal text.
      for (const { text: _text, ...printed } of previews) {
        expect(schemaErrors('trigger-report', printed, '/$defs/delivery')).toEqual([]);
      }
      const webhook = previews.find((preview) => preview.type === 'webhook');
      if (webhook?.type !== 'webhook') throw new Error('no webhook preview');
      // The body's contentSchema is an annotation to Ajv: the event it carries is checked here, against that schema.
      expect(resultEventValidator()(JSON.parse(webhook.payload.body))).toBe(true);
      const snsPreview = previews.find((preview) => preview.type === 'sns');
      if (snsPreview?.type !== 'sns') throw new Error('no SNS preview');
      const { text: _snsText, ...sns } = snsPreview;
      expect(schemaErrors('trigger-report', { ...sns, type: 'slack' }, '/$defs/delivery')).not.toEqual([]);
      const long = { ...sns, payload: { ...sns.payload, subject: 'x'.repeat(SNS_LIMITS.subject + 1) } };
      expect(schemaErrors('trigger-report', long, '/$defs/delivery')).not.toEqual([]);
      const { text: _webhookText, ...printedWebhook } = webhook;
      const unsigned = {
        ...printedWebhook,
        payload: { ...webhook.payload, headers: { ...webhook.payload.headers, [SIGNATURE_HEADER]: 'sha256=00' } },
      };
      expect(schemaErrors('trigger-report', unsigned, '/$defs/delivery')).not.toEqual([]);
    },
  );

  it("tie eval compare's words, figures and point bounds to the code's own", () => {
    const comparison = (path: string) => at('eval-comparison', `$defs.${path}`);
    expect(comparison('state.anyOf')).toEqual([
      { $ref: 'eval-report.schema.json#/$defs/verdict' },
      { $ref: '#/$defs/noVerdict' },
    ]);
    expect(comparison('noVerdict.enum')).toEqual([...NO_VERDICT_STATES]);
    expect(comparison('processChange.pattern')).toBe(`^(${PROCESS_CHANGE_FIGURES.join('|')}) \\S+ → \\S+$`);
    const points = Object.values(VERDICT_POINTS);
    const [lowest, highest] = [Math.min(...points), Math.max(...points)];
    expect([comparison('meanPoints.minimum'), comparison('meanPoints.maximum')]).toEqual([lowest, highest]);
    const change = ['minimum', 'maximum'].map((bound) => comparison(`scenario.properties.pointsChange.${bound}`));
    expect(change).toEqual([lowest - highest, highest - lowest]);
  });
});
