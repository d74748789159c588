import type { AuditHook, PseudonymBatchEvent, ToolInvocationEvent } from '@diagnosis/core';
import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../support/diagnose.ts';
import { envelope, LOGS_INPUT, noConclusionDraft } from '../../../support/run-fixtures.ts';
import { observationsIn, textRound, toolRound } from '../../../support/scripted-model.ts';

const PHONE = '13812345678';
const EMAIL = 'wang.fang@example.cn';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1MSJ9.c2lnbmF0dXJl';
const lines = {
  matched: 2,
  lines: [
    {
      timestamp: '2026-11-30T14:01:00+08:00',
      level: 'ERROR',
      service: 'order-service',
      message: `pay failed user=${PHONE} email=${EMAIL} auth=Bearer ${TOKEN}`,
      trace_id: 't-1',
    },
    {
      timestamp: '2026-11-30T14:02:00+08:00',
      level: 'ERROR',
      service: 'order-service',
      message: `retry failed user=${PHONE}`,
    },
  ],
};

/** An audit that keeps everything, the pseudonym batches included, in the order they came. */
function recordingAudit() {
  const events: (['tool', ToolInvocationEvent] | ['map', PseudonymBatchEvent])[] = [];
  const hook: AuditHook = {
    onModelStep: async () => undefined,
    onToolInvocation: async (event) => void events.push(['tool', event]),
    onPseudonyms: async (event) => void events.push(['map', event]),
  };
  return { hook, events };
}

const final = () => textRound(JSON.stringify(noConclusionDraft()));
const observationsOf = (model: Awaited<ReturnType<typeof diagnose>>['model'], round: number) =>
  observationsIn(model.doGenerateCalls[round]?.prompt ?? []);

describe('createToolInterceptor with masking', () => {
  it('masks what the model, the audit and the stored result see, and stores the map before the call', async () => {
    const audit = recordingAudit();
    const { model } = await diagnose(
      [toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]), final()],
      { handlers: { query_logs: () => ({ status: 'OK', data: lines }) }, audit: audit.hook },
    );
    const observation = JSON.stringify(observationsOf(model, 1)[0]);
    expect(observation).toMatch(/user=<phone:[a-z2-7]{5}> email=<email:[a-z2-7]{5}> auth=Bearer \[REDACTED:jwt\]/);
    const seenByAudit = JSON.stringify(audit.events);
    for (const value of [PHONE, EMAIL, TOKEN]) {
      expect(observation).not.toContain(value);
      expect(seenByAudit).not.toContain(value);
    }
    expect(audit.events.map(([kind]) => kind)).toEqual(['map', 'tool']);
    const [, tool] = audit.events[1] as ['tool', ToolInvocationEvent];
    expect(JSON.stringify(tool.result)).toMatch(/<phone:[a-z2-7]{5}>/);
  });

  it('restores a pseudonym the run has shown for the adapter, and shows the evidence masked again', async () => {
    const seen: unknown[] = [];
    const { model, adapterCalls } = await diagnose(
      [
        toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]),
        (options) => {
          const phone = JSON.stringify(observationsIn(options.prompt)).match(/<phone:[a-z2-7]{5}>/)?.[0];
          seen.push(phone);
          return toolRound([
            {
              id: 'call-2',
              name: 'query_logs',
              input: envelope(
                { ...LOGS_INPUT, keyword: `user=${phone}` },
                { tool_call_id: 'call-1', evaluation: 'GAINED' },
              ),
            },
          ]);
        },
        final(),
      ],
      { handlers: { query_logs: () => ({ status: 'OK', data: lines }) } },
    );
    expect(seen[0]).toMatch(/^<phone:[a-z2-7]{5}>$/);
    expect(adapterCalls[1]?.input).toMatchObject({ keyword: `user=${PHONE}` });
    expect(JSON.stringify(observationsOf(model, 2)[1])).toContain(String(seen[0]));
  });

  it('refuses a made-up pseudonym or one the run never showed with UNKNOWN_PSEUDONYM, before any adapter runs', async () => {
    const audit = recordingAudit();
    const { model, adapterCalls } = await diagnose(
      [
        toolRound([
          { id: 'call-1', name: 'query_logs', input: envelope({ ...LOGS_INPUT, keyword: '<phone:abcde>' }) },
          {
            id: 'call-2',
            name: 'query_mysql',
            input: envelope({ query_name: 'payment_channel_config', params: { channel: '<email:zzzzz>' } }),
          },
        ]),
        final(),
      ],
      { audit: audit.hook },
    );
    expect(adapterCalls).toEqual([]);
    expect(observationsOf(model, 1)).toMatchObject([
      { tool_call_id: 'call-1', evidence_status: 'REJECTED', code: 'UNKNOWN_PSEUDONYM' },
      { tool_call_id: 'call-2', evidence_status: 'REJECTED', code: 'UNKNOWN_PSEUDONYM' },
    ]);
    const tools = audit.events.filter(([kind]) => kind === 'tool').map(([, event]) => event as ToolInvocationEvent);
    expect(tools.map((event) => [event.disposition, event.code])).toEqual([
      ['REJECTED', 'UNKNOWN_PSEUDONYM'],
      ['REJECTED', 'UNKNOWN_PSEUDONYM'],
    ]);
  });

  it('masks a MySQL cell by its column in the stored result too, as in the observation (a password column)', async () => {
    // NOTE: the stored result was once masked by walking the raw rows, which do not know their column,
    // so a `password` cell was redacted for the model but stored in clear in the audit's result.
    const audit = recordingAudit();
    const rows = {
      columns: ['user_name', 'password', 'api_token', 'note'],
      rows: [['alice', 'hunter2-plain', 'tok-9f8e7d6c5b4a', `call ${PHONE}`]],
      truncated: false,
    };
    const { model } = await diagnose(
      [
        toolRound([
          {
            id: 'call-1',
            name: 'query_mysql',
            input: envelope({ query_name: 'payment_channel_config', params: { channel: 'alipay' } }),
          },
        ]),
        final(),
      ],
      { handlers: { query_mysql: () => ({ status: 'OK', data: rows }) }, audit: audit.hook },
    );
    const observation = JSON.stringify(observationsOf(model, 1)[0]);
    const [, tool] = audit.events.find(([kind]) => kind === 'tool') as ['tool', ToolInvocationEvent];
    const stored = JSON.stringify(tool.result);
    for (const text of [observation, stored, JSON.stringify(audit.events)]) {
      expect(text).not.toContain('hunter2-plain');
      expect(text).not.toContain('tok-9f8e7d6c5b4a');
      expect(text).not.toContain(PHONE);
    }
    expect(tool.result).toMatchObject({ columns: rows.columns, truncated: false });
    expect(stored).toContain('alice');
  });

  it('masks an adapter’s error detail for the audit', async () => {
    const audit = recordingAudit();
    await diagnose([toolRound([{ id: 'call-1', name: 'query_logs', input: envelope(LOGS_INPUT) }]), final()], {
      handlers: {
        query_logs: () => ({ status: 'ERROR', code: 'UNAVAILABLE', detail: `connect to ${EMAIL} password=hunter2x` }),
      },
      audit: audit.hook,
    });
    const [, tool] = audit.events.find(([kind]) => kind === 'tool') as ['tool', ToolInvocationEvent];
    expect(tool.errorDetail).toMatch(/^connect to <email:[a-z2-7]{5}> password=\[REDACTED:password\]$/);
  });
});
