/**
 * One run per incident on DynamoDB Local (issue 21): the incident claimed with a conditional write, later events of
 * it attached as incident events, a re-fire after the run ended and the quiet period passed continuing the session.
 * The workflow is a recorder (no diagnosis runs here); time is a fake clock.
 * NOTE: over 300 lines on purpose: one incident's sessions on DynamoDB Local with one fake clock: the claim, the
 * attached events, the continued session and what each event says share the table and the clock.
 */
import {
  DEVELOPMENT_MASKING_SECRET,
  executeDiagnosisRun,
  handleIncidentEvent,
  type IncidentDeps,
  type IncidentEvent,
} from '@diagnosis/core';
import {
  createDynamoIncidentStore,
  createDynamoRunStore,
  createDynamoStores,
  MAX_STORED_INCIDENT_EVENTS,
} from '@diagnosis/core/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishedOutcome } from '../../support/audit-events.ts';
import { createTestTable, localDynamoClient, recordCommands } from '../../support/dynamodb.ts';
import { createFakeEvidence } from '../../support/fake-evidence.ts';
import { recordingWorkflow } from '../../support/recording-workflow.ts';
import { noConclusionDraft } from '../../support/run-fixtures.ts';
import { scriptedModel, textRound } from '../../support/scripted-model.ts';

const client = localDynamoClient({ maxAttempts: 10 });
let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable(client);
});
afterAll(async () => {
  await table.drop();
  client.destroy();
});

const T0 = Date.parse('2026-11-30T06:05:00Z');
let counter = 0;

function world() {
  let clock = T0;
  const { workflow, started } = recordingWorkflow();
  const store = createDynamoRunStore({ client, tableName: table.tableName, now: () => clock });
  const incidents = createDynamoIncidentStore({ client, tableName: table.tableName });
  const suffix = `${Date.now().toString(36)}${(counter++).toString(36)}`;
  let runs = 0;
  const deps: IncidentDeps = {
    incidents,
    start: { store, workflow },
    quietPeriodMs: 600_000,
    now: () => clock,
    newRunId: () => `trig-${suffix}-${(runs++).toString().padStart(3, '0')}`,
    masking: { config: { mode: 'identifiers', secret: DEVELOPMENT_MASKING_SECRET }, pseudonyms: store },
  };
  return {
    deps,
    store,
    incidents,
    started,
    advance: (ms: number) => {
      clock += ms;
    },
    now: () => clock,
  };
}

const incident = (incidentKey: string, eventId: string, overrides: Partial<IncidentEvent> = {}): IncidentEvent => ({
  ref: { enterpriseId: 'E1001', source: 'cloudwatch', incidentKey },
  eventId,
  kind: 'TRIGGERED',
  title: 'payment-gateway-5xx',
  startedAt: T0,
  query: 'CloudWatch 告警「payment-gateway-5xx」进入 ALARM 状态。请诊断原因。',
  window: { from: new Date(T0 - 1_800_000).toISOString(), to: new Date(T0).toISOString() },
  ...overrides,
});

/** `handleIncidentEvent` for an event that must start or attach (an ignored one fails the test). */
async function handled(event: IncidentEvent, deps: IncidentDeps) {
  const outcome = await handleIncidentEvent(event, deps);
  if (outcome.outcome === 'IGNORED') throw new Error(`the event was ignored: ${outcome.code}`);
  return outcome;
}

describe('handleIncidentEvent', () => {
  it('starts exactly one run and attaches 99 events when 100 events of one incident arrive within 10 s', async () => {
    const { deps, store, incidents, started, advance } = world();
    const key = `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:storm-${counter}@2026-11-30T06:05:00.000Z`;
    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, index) => {
        if (index % 10 === 0) advance(1_000);
        return handleIncidentEvent(incident(key, `event-${index}`), deps);
      }),
    );
    const startedOutcomes = outcomes.filter((outcome) => outcome.outcome === 'STARTED');
    const attached = outcomes.filter((outcome) => outcome.outcome === 'ATTACHED');
    expect(startedOutcomes).toHaveLength(1);
    expect(attached).toHaveLength(99);
    expect(started).toEqual([startedOutcomes[0]?.runId]);
    const runId = startedOutcomes[0]?.runId ?? '';
    expect(new Set(attached.map((outcome) => outcome.runId))).toEqual(new Set([runId]));
    // Every attached event has its own sequence number and its own stored item.
    expect(
      attached.map((outcome) => (outcome.outcome === 'ATTACHED' ? outcome.sequence : 0)).sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 99 }, (_, index) => index + 1));
    const events = await incidents.listIncidentEvents(runId);
    expect(events).toHaveLength(99);
    expect(new Set(events.map((event) => event.eventId)).size).toBe(99);
    const run = await store.getRun(runId);
    expect(run?.trigger).toMatchObject({ source: 'cloudwatch', incidentKey: key, title: 'payment-gateway-5xx' });
    expect(run?.window).toEqual({ from: '2026-11-30T05:35:00.000Z', to: '2026-11-30T06:05:00.000Z' });
    expect(run?.continueSession).toBe(false);
  });

  it('starts two runs for two incidents whose events interleave', async () => {
    const { deps, started } = world();
    const keys = [`alarm-a-${counter}@t`, `alarm-b-${counter}@t`];
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        handleIncidentEvent(incident(keys[index % 2] ?? '', `event-${index}`), deps),
      ),
    );
    const runs = outcomes.filter((outcome) => outcome.outcome === 'STARTED');
    expect(runs).toHaveLength(2);
    expect(started).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome.outcome === 'ATTACHED')).toHaveLength(18);
    const sessions = runs.map((outcome) => (outcome.outcome === 'STARTED' ? outcome.sessionId : ''));
    expect(new Set(sessions).size).toBe(2);
  });

  it('keeps at most MAX_STORED_INCIDENT_EVENTS events of a run and counts the rest', async () => {
    const { deps, incidents } = world();
    const key = `alarm-cap-${counter}@t`;
    const first = await handled(incident(key, 'first'), deps);
    for (let index = 0; index < MAX_STORED_INCIDENT_EVENTS + 5; index += 1) {
      await handled(incident(key, `later-${index}`), deps);
    }
    const events = await incidents.listIncidentEvents(first.runId);
    expect(events).toHaveLength(MAX_STORED_INCIDENT_EVENTS);
    expect((await incidents.getIncident(incident(key, 'x').ref))?.eventCount).toBe(MAX_STORED_INCIDENT_EVENTS + 5);
  });

  it('claims a new incident with one conditional write and no read; a repeat is refused with the incident and attached', async () => {
    const counting = localDynamoClient({ maxAttempts: 10 });
    const incidentRequests = recordCommands(counting);
    try {
      const { deps, store, started } = world();
      const counted = {
        ...deps,
        incidents: createDynamoIncidentStore({ client: counting, tableName: table.tableName }),
      };
      const key = `alarm-one-write-${counter}@t`;
      const first = await handled(incident(key, 'first'), counted);
      expect(incidentRequests).toEqual(['PutItemCommand']);
      incidentRequests.length = 0;
      // The repeat: its claim is refused, the refusal carries the incident (no GetItem), and the event is attached.
      expect(await handled(incident(key, 'again'), counted)).toMatchObject({
        outcome: 'ATTACHED',
        runId: first.runId,
        sequence: 1,
      });
      expect(incidentRequests).toEqual(['PutItemCommand', 'UpdateItemCommand', 'PutItemCommand']);
      expect(started).toEqual([first.runId]);
      expect((await store.getRun(first.runId))?.status).toBe('QUEUED');
    } finally {
      counting.destroy();
    }
  });

  it('reads the incident when the store cannot say which incident refused the claim, and attaches', async () => {
    const { deps, incidents, started } = world();
    const silent: IncidentDeps = {
      ...deps,
      incidents: {
        ...incidents,
        openIncident: async (ref, claim) => {
          const answer = await incidents.openIncident(ref, claim);
          return answer.opened ? answer : { opened: false, incident: null };
        },
      },
    };
    const key = `alarm-silent-${counter}@t`;
    const first = await handled(incident(key, 'first'), silent);
    expect(await handled(incident(key, 'again'), silent)).toMatchObject({ outcome: 'ATTACHED', runId: first.runId });
    expect(started).toEqual([first.runId]);
  });

  it('attaches a re-fire within the quiet period after the run ended, and starts nothing', async () => {
    const { deps, store, started, advance } = world();
    const key = `alarm-quiet-${counter}@t`;
    const first = await handled(incident(key, 'first'), deps);
    await store.claimQueuedRun(first.runId, T0 + 300_000);
    await store.completeRun(first.runId, publishedOutcome());
    advance(599_000);
    const again = await handled(incident(key, 'again'), deps);
    expect(again).toMatchObject({ outcome: 'ATTACHED', runId: first.runId });
    expect(started).toHaveLength(1);
  });

  it('attaches events while the run is open, however long after the first', async () => {
    const { deps, started, advance } = world();
    const key = `alarm-open-${counter}@t`;
    const first = await handled(incident(key, 'first'), deps);
    advance(3_600_000);
    expect(await handled(incident(key, 'late'), deps)).toMatchObject({
      outcome: 'ATTACHED',
      runId: first.runId,
    });
    expect(started).toHaveLength(1);
  });

  it('starts a second run in the same session after the run ended and the quiet period passed; its previous turn is the first', async () => {
    const { deps, store, started, advance, now } = world();
    const key = `alarm-refire-${counter}@t`;
    const first = await handled(incident(key, 'first'), deps);
    if (first.outcome !== 'STARTED') throw new Error('the first event must start the run');
    await store.claimQueuedRun(first.runId, T0 + 300_000);
    await store.completeRun(first.runId, publishedOutcome());
    advance(600_000);
    const second = await handled(incident(key, 'refire'), deps);
    if (second.outcome !== 'STARTED') throw new Error('the re-fire must start a run');
    expect(second.runId).not.toBe(first.runId);
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.continued).toBe(true);
    expect(started).toEqual([first.runId, second.runId]);

    // The second run, executed as the workflow would, gets the first diagnosis as its previous turn.
    const model = scriptedModel([textRound(JSON.stringify(noConclusionDraft()))]);
    await executeDiagnosisRun(
      {
        runId: second.runId,
        sessionId: second.sessionId,
        enterpriseId: 'E1001',
        query: incident(key, 'refire').query,
        continueSession: true,
        executionArn: deps.start.workflow.executionArnOf(second.runId),
        remainingMs: 120_000,
      },
      {
        model,
        evidence: createFakeEvidence().evidence,
        createStore: () => createDynamoStores({ client, tableName: table.tableName, now }),
        flushReserveMs: 1_000,
        now,
      },
    );
    const prompt = model.doGenerateCalls[0]?.prompt ?? [];
    const part = prompt.find((message) => message.role === 'user')?.content[0];
    const user = JSON.parse(part !== undefined && 'text' in part ? part.text : '{}') as {
      previous_turn: { run_id: string } | null;
      incident_window?: unknown;
    };
    expect(user.previous_turn?.run_id).toBe(first.runId);
    expect(user.incident_window).toBeDefined();
  });

  it('starts the incident again on the sender’s retry when its run’s workflow could not be started', async () => {
    const { deps, store, started } = world();
    const key = `alarm-workflow-down-${counter}@t`;
    const failing: IncidentDeps = {
      ...deps,
      start: {
        ...deps.start,
        workflow: recordingWorkflow({ fail: () => new Error('states unavailable') }).workflow,
      },
    };
    await expect(handleIncidentEvent(incident(key, 'first'), failing)).rejects.toThrow('states unavailable');
    const retried = await handled(incident(key, 'first'), deps);
    expect(retried.outcome).toBe('STARTED');
    expect(started).toEqual([retried.runId]);
    expect((await store.getRun(retried.runId))?.status).toBe('QUEUED');
  });

  it('applies the tenant’s admission bound: an incident over it starts nothing and is started by the retry once a place is free', async () => {
    const { deps, started } = world();
    // One open run at most for this test's enterprise (its own id, so no other test's runs count).
    const enterpriseId = `B${counter}${Date.now().toString(36).toUpperCase()}`.slice(0, 20);
    const bounded: IncidentDeps = {
      ...deps,
      start: {
        ...deps.start,
        store: createDynamoRunStore({ client, tableName: table.tableName, now: deps.now, maxOpenRuns: 1 }),
      },
    };
    const of = (key: string, eventId: string) => {
      const base = incident(key, eventId);
      return { ...base, ref: { ...base.ref, enterpriseId } };
    };
    const first = await handled(of('bound-a@t', 'a1'), bounded);
    expect(first.outcome).toBe('STARTED');
    await expect(handleIncidentEvent(of('bound-b@t', 'b1'), bounded)).rejects.toMatchObject({ code: 'TENANT_BUSY' });
    expect(started).toEqual([first.runId]);
    // The first run ends; the second incident's retry (EventBridge retries a failed asynchronous invocation) starts.
    await bounded.start.store.claimQueuedRun(first.runId, T0 + 300_000);
    await bounded.start.store.completeRun(first.runId, publishedOutcome());
    const retried = await handled(of('bound-b@t', 'b1'), bounded);
    expect(retried.outcome).toBe('STARTED');
    expect(started).toEqual([first.runId, retried.runId]);
  });

  it('gives a re-fire’s claim back when admission refuses it: the retry is refused honestly or starts, never attached to a run that was never stored (issue 32 item 6)', async () => {
    const { deps, advance, now } = world();
    const enterpriseId = `R${counter}${Date.now().toString(36).toUpperCase()}`.slice(0, 20);
    const bounded: IncidentDeps = {
      ...deps,
      start: {
        ...deps.start,
        store: createDynamoRunStore({ client, tableName: table.tableName, now, maxOpenRuns: 1 }),
      },
    };
    const of = (key: string, eventId: string) => {
      const base = incident(key, eventId);
      return { ...base, ref: { ...base.ref, enterpriseId } };
    };
    const first = await handleIncidentEvent(of('refire@t', 'f1'), bounded);
    if (first.outcome !== 'STARTED') throw new Error('the first event must start the incident');
    await bounded.start.store.claimQueuedRun(first.runId, now());
    await bounded.start.store.completeRun(first.runId, publishedOutcome());
    advance(deps.quietPeriodMs + 1_000);
    // Another incident of the tenant takes its one open place; the re-fire is refused by admission.
    const other = await handleIncidentEvent(of('occupier@t', 'o1'), bounded);
    expect(other.outcome).toBe('STARTED');
    await expect(handleIncidentEvent(of('refire@t', 'f2'), bounded)).rejects.toMatchObject({ code: 'TENANT_BUSY' });
    const afterRefusal = await deps.incidents.getIncident(of('refire@t', 'f2').ref);
    expect(afterRefusal).toMatchObject({ runId: first.runId, runCount: 1 });
    // The sender's retry at once: refused again, honestly (never 'ATTACHED' to a run id that 404s).
    advance(1_000);
    await expect(handleIncidentEvent(of('refire@t', 'f2'), bounded)).rejects.toMatchObject({ code: 'TENANT_BUSY' });
    // Once a place is free, the retry starts the re-fire, continuing the incident's session.
    if (other.outcome !== 'STARTED') throw new Error('unreachable');
    await bounded.start.store.claimQueuedRun(other.runId, now());
    await bounded.start.store.completeRun(other.runId, publishedOutcome());
    const retried = await handleIncidentEvent(of('refire@t', 'f2'), bounded);
    expect(retried).toMatchObject({ outcome: 'STARTED', continued: true, sessionId: first.sessionId });
    if (retried.outcome !== 'STARTED') throw new Error('unreachable');
    expect(await bounded.start.store.getRun(retried.runId)).toMatchObject({ status: 'QUEUED' });
    expect(await deps.incidents.getIncident(of('refire@t', 'f2').ref)).toMatchObject({
      runId: retried.runId,
      runCount: 2,
    });
  });

  it('gives the claim back when the run could not be stored, so the next event starts it', async () => {
    const { deps, started } = world();
    const key = `alarm-refused-${counter}@t`;
    const refusing: IncidentDeps = {
      ...deps,
      start: {
        ...deps.start,
        store: {
          ...deps.start.store,
          queueRun: async () => {
            throw Object.assign(new Error('refused'), { code: 'TENANT_BUSY' });
          },
        },
      },
    };
    await expect(handleIncidentEvent(incident(key, 'first'), refusing)).rejects.toThrow('refused');
    const retried = await handled(incident(key, 'retry'), deps);
    expect(retried.outcome).toBe('STARTED');
    expect(started).toHaveLength(1);
  });
});

describe('handleIncidentEvent: what each event says about the incident (issue 32)', () => {
  /** An Alertmanager group's incident: keyed by its group key, whatever its alerts do. */
  const group = (key: string, eventId: string, overrides: Partial<IncidentEvent> = {}) => {
    const base = incident(key, eventId, { kind: 'FIRING', firingSince: T0 - 60_000, ...overrides });
    return { ...base, ref: { ...base.ref, source: 'alertmanager' as const } };
  };
  async function endedRun(kind: Partial<IncidentEvent>, key: string) {
    const context = world();
    const first = await handled(group(key, 'first', kind), context.deps);
    if (first.outcome !== 'STARTED') throw new Error('the first event must start the run');
    await context.store.claimQueuedRun(first.runId, T0 + 300_000);
    await context.store.completeRun(first.runId, publishedOutcome());
    return { ...context, first };
  }

  it('never starts a second run for a group that keeps firing, however long after its run ended', async () => {
    const { deps, started, advance, first, incidents } = await endedRun({}, `{}:{alertname="keeps"}-${counter}`);
    for (const hours of [1, 4, 4, 24]) {
      advance(hours * 3_600_000);
      // The repeat of a group whose earliest alert still fires, or whose earliest alert resolved and a later one fires.
      const again = await handled(group(`{}:{alertname="keeps"}-${counter - 1}`, `repeat-${hours}`), deps);
      expect(again).toMatchObject({ outcome: 'ATTACHED', runId: first.runId });
    }
    expect(started).toEqual([first.runId]);
    expect((await incidents.listIncidentEvents(first.runId)).map((event) => event.kind)).toEqual([
      'FIRING',
      'FIRING',
      'FIRING',
      'FIRING',
    ]);
  });

  it('starts a re-fire in the same session when the group fires again after it resolved and the quiet period passed', async () => {
    const key = `{}:{alertname="refires"}-${counter}`;
    const { deps, started, advance, first, incidents } = await endedRun({}, key);
    advance(60_000);
    expect(await handled(group(key, 'resolved', { kind: 'RESOLVED' }), deps)).toMatchObject({
      outcome: 'ATTACHED',
      runId: first.runId,
    });
    // Within the quiet period after the resolution: a flap, attached.
    advance(300_000);
    expect(await handled(group(key, 'flap', { firingSince: T0 + 300_000 }), deps)).toMatchObject({
      outcome: 'ATTACHED',
    });
    advance(60_000);
    expect(await handled(group(key, 'resolved-again', { kind: 'RESOLVED' }), deps)).toMatchObject({
      outcome: 'ATTACHED',
    });
    advance(600_000);
    const refire = await handled(group(key, 'refire', { firingSince: T0 + 1_000_000 }), deps);
    expect(refire).toMatchObject({ outcome: 'STARTED', continued: true, sessionId: first.sessionId });
    expect(started).toEqual([first.runId, refire.runId]);
    expect((await incidents.listIncidentEvents(first.runId)).map((event) => event.kind)).toEqual([
      'RESOLVED',
      'FIRING',
      'RESOLVED',
    ]);
    expect(await incidents.getIncident(group(key, 'x').ref)).toMatchObject({ resolvedAt: null, runCount: 2 });
  });

  it('starts a re-fire when every firing alert began after the incident’s last event (its resolution was not heard)', async () => {
    const key = `{}:{alertname="unheard"}-${counter}`;
    const { deps, started, advance, first } = await endedRun({}, key);
    advance(7_200_000);
    const refire = await handled(group(key, 'new-episode', { firingSince: T0 + 7_000_000 }), deps);
    expect(refire).toMatchObject({ outcome: 'STARTED', continued: true });
    expect(started).toEqual([first.runId, refire.runId]);
  });

  it('attaches a group whose sender’s clock runs ahead of ours (its alert seems to start after the first event)', async () => {
    const key = `{}:{alertname="skewed"}-${counter}`;
    // Prometheus's clock 45 s ahead: the alert's startsAt is after the moment the incident was opened here.
    const { deps, started, advance, first } = await endedRun({ firingSince: T0 + 45_000 }, key);
    advance(4 * 3_600_000);
    expect(await handled(group(key, 'repeat', { firingSince: T0 + 45_000 }), deps)).toMatchObject({
      outcome: 'ATTACHED',
      runId: first.runId,
    });
    expect(started).toEqual([first.runId]);
  });

  it('treats PagerDuty’s reopened as a re-fire, and records acknowledged and resolved without starting anything', async () => {
    const key = `Q2W8ZKH3R5TB7Y-${counter}`;
    const { deps, started, advance, first, incidents } = await endedRun({ kind: 'TRIGGERED' }, key);
    advance(60_000);
    expect(await handled(group(key, 'ack', { kind: 'ACKNOWLEDGED' }), deps)).toMatchObject({ outcome: 'ATTACHED' });
    advance(60_000);
    expect(await handled(group(key, 'res', { kind: 'RESOLVED' }), deps)).toMatchObject({ outcome: 'ATTACHED' });
    advance(3_600_000);
    const reopened = await handled(group(key, 'reopen', { kind: 'REOPENED' }), deps);
    expect(reopened).toMatchObject({ outcome: 'STARTED', continued: true });
    expect(started).toEqual([first.runId, reopened.runId]);
    expect((await incidents.listIncidentEvents(first.runId)).map((event) => event.kind)).toEqual([
      'ACKNOWLEDGED',
      'RESOLVED',
    ]);
  });

  it('records an ALARM → ALARM update without starting a run, even after the run ended and the quiet period passed', async () => {
    const key = `arn:aws:cloudwatch:eu-west-1:123456789012:alarm:updated-${counter}`;
    const { deps, started, advance, first } = await endedRun({ kind: 'TRIGGERED' }, key);
    advance(3_600_000);
    expect(await handled(group(key, 'update', { kind: 'UPDATED' }), deps)).toMatchObject({
      outcome: 'ATTACHED',
      runId: first.runId,
    });
    expect(started).toEqual([first.runId]);
  });

  it.each(['ACKNOWLEDGED', 'RESOLVED', 'UPDATED'] as const)(
    'ignores %s for an incident never opened, writing nothing',
    async (kind) => {
      const { deps, incidents, started } = world();
      const event = group(`never-opened-${kind}-${counter}`, 'e', { kind });
      expect(await handleIncidentEvent(event, deps)).toEqual({ outcome: 'IGNORED', code: 'NO_INCIDENT' });
      expect(await incidents.getIncident(event.ref)).toBeNull();
      expect(started).toEqual([]);
    },
  );
});
